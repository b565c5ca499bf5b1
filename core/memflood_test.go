package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	floodMaxKeys   = 4096
	floodVictims   = 64
	floodNewcomers = 1000
)

// floodTables are a memory store table under test, with default options
// but a small MaxKeys, and a reference table that never runs out of room.
type floodTables struct {
	tb, ref store.Table
}

func newFloodTables(t *testing.T, p *core.Policy, opts core.MemoryOptions) floodTables {
	t.Helper()
	ms, err := core.NewMemoryStore(opts)
	require.NoError(t, err)
	tb, err := ms.Bind(p)
	require.NoError(t, err)
	rs, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 1 << 16})
	require.NoError(t, err)
	ref, err := rs.Bind(p)
	require.NoError(t, err)
	return floodTables{tb: tb, ref: ref}
}

// floodDo applies op to key on a table of a single-limit policy and
// returns the limit's outcome.
func floodDo(t *testing.T, tb store.Table, op store.Op, key string, now int64) store.Outcome {
	d, err := tb.Do(context.Background(), store.Request{Op: op, Key: key, Cost: 1, Now: now})
	if err != nil { // t.Helper only here: it costs more than the decision
		t.Helper()
		t.Fatalf("%v %s: %v", op, key, err)
	}
	return d.Outcomes[0]
}

// takeUntilDenied takes cost 1 for key on both tables until the reference
// denies (at most 100 times) and returns how many decisions of the table
// under test differed from the reference's.
func (f floodTables) takeUntilDenied(t *testing.T, key string, now int64) (differ int) {
	for i := 0; i < 100; i++ {
		want := floodDo(t, f.ref, store.OpTake, key, now)
		got := floodDo(t, f.tb, store.OpTake, key, now)
		if got.Allowed != want.Allowed || got.Remaining != want.Remaining || got.RetryAfter != want.RetryAfter {
			differ++
		}
		if !want.Allowed {
			return differ
		}
	}
	t.Helper()
	t.Fatalf("key %s: still admitted after 100 takes", key)
	return differ
}

// Under a flood of twice MaxKeys distinct keys, each sending one request,
// a table with default options (1) forgets no key held at its limit, for
// every algorithm: each is still denied, with the very RetryAfter of a
// table that forgets nothing; (2) decides at least 99% of 1,000 new
// clients exactly as that table does (each takes until denied); (3) never
// holds more than MaxKeys entries.
func TestMemoryFloodKeepsLimitedKeys(t *testing.T) {
	t.Parallel()
	for _, l := range coretest.Algorithms() {
		t.Run(l.Name, func(t *testing.T) {
			t.Parallel()
			p, err := core.Single(l.Name, l.Algorithm)
			require.NoError(t, err)
			f := newFloodTables(t, p, core.MemoryOptions{MaxKeys: floodMaxKeys})
			t0 := coretest.T0.UnixNano()
			// The victims are hammered for 2 s, every 100 ms, to their
			// limit: locked, exhausted, warm and waiting.
			victim := func(i int) string { return fmt.Sprint("victim-", i) }
			var t1 int64
			for s := 0; s <= 20; s++ {
				t1 = t0 + int64(s)*int64(100*time.Millisecond)
				for i := 0; i < floodVictims; i++ {
					require.Zero(t, f.takeUntilDenied(t, victim(i), t1))
				}
			}
			checkVictims := func(now int64) {
				t.Helper()
				for i := 0; i < floodVictims; i++ {
					want := floodDo(t, f.ref, store.OpPeek, victim(i), now)
					require.False(t, want.Allowed, "the reference must still limit %s", victim(i))
					got := floodDo(t, f.tb, store.OpPeek, victim(i), now)
					require.False(t, got.Allowed, "%s was forgotten", victim(i))
					require.Equal(t, want.RetryAfter, got.RetryAfter, "%s", victim(i))
				}
			}
			now := t1
			for i := 0; i < 2*floodMaxKeys; i++ {
				now += int64(time.Microsecond)
				floodDo(t, f.tb, store.OpTake, fmt.Sprint("flood-", i), now)
				if i%256 == 0 {
					require.LessOrEqual(t, core.TableLen(f.tb), floodMaxKeys)
				}
			}
			require.LessOrEqual(t, core.TableLen(f.tb), floodMaxKeys)
			checkVictims(now)
			differ := 0
			for i := 0; i < floodNewcomers; i++ {
				now += int64(time.Microsecond)
				if f.takeUntilDenied(t, fmt.Sprint("new-", i), now) > 0 {
					differ++
				}
				require.LessOrEqual(t, core.TableLen(f.tb), floodMaxKeys)
			}
			assert.LessOrEqual(t, differ, floodNewcomers/100, "new clients decided otherwise than by a table that forgets nothing")
			checkVictims(now)
		})
	}
}

// floodVictims hammers floodVictims keys to their limit on both tables, for
// 2 s every 100 ms, and returns their names and the instant of the last
// hammering.
func (f floodTables) hammerVictims(t *testing.T) ([]string, int64) {
	t.Helper()
	t0 := coretest.T0.UnixNano()
	victims := make([]string, floodVictims)
	for i := range victims {
		victims[i] = fmt.Sprint("victim-", i)
	}
	var t1 int64
	for s := 0; s <= 20; s++ {
		t1 = t0 + int64(s)*int64(100*time.Millisecond)
		for _, v := range victims {
			require.Zero(t, f.takeUntilDenied(t, v, t1))
		}
	}
	return victims, t1
}

// The attacker who makes every flood key look limited too. Flood keys each
// worth less than the victims (each takes while its forgetCost stays below
// the least of the victims') never erase a victim. Flood keys each taken to
// their limit may (a victim is then the cheapest, or nearest to recovery
// among equals), and the bound holds: a forgotten victim is admitted at most
// its forgetCost more than by a table that forgets nothing, and only after
// the attacker has had about as much admitted to each of twice MaxKeys keys.
func TestMemoryFloodOfLimitedKeys(t *testing.T) {
	t.Parallel()
	for _, l := range coretest.Algorithms() {
		t.Run(l.Name, func(t *testing.T) {
			t.Parallel()
			p, err := core.Single(l.Name, l.Algorithm)
			require.NoError(t, err)

			// Lighter flood keys: no victim is forgotten.
			f := newFloodTables(t, p, core.MemoryOptions{MaxKeys: floodMaxKeys})
			victims, now := f.hammerVictims(t)
			floodEnd := now + int64(2*floodMaxKeys)*int64(time.Microsecond)
			least := int64(1 << 62)
			for _, v := range victims {
				least = min(least, core.TableForgetCost(f.ref, v, floodEnd))
			}
			require.Positive(t, least)
			taken := 0
			for i := 0; i < 2*floodMaxKeys; i++ {
				now += int64(time.Microsecond)
				key := fmt.Sprint("flood-", i)
				for j := 0; j < 100; j++ {
					// Take on the reference first: stop before the key
					// would weigh as much as a victim.
					if !floodDo(t, f.ref, store.OpTake, key, now).Allowed || core.TableForgetCost(f.ref, key, floodEnd) >= least {
						break
					}
					floodDo(t, f.tb, store.OpTake, key, now)
					taken++
				}
				if i%256 == 0 {
					require.LessOrEqual(t, core.TableLen(f.tb), floodMaxKeys)
				}
			}
			for _, v := range victims {
				require.Equal(t, floodDo(t, f.ref, store.OpPeek, v, now), floodDo(t, f.tb, store.OpPeek, v, now), "%s was forgotten", v)
			}
			t.Logf("lighter flood: %d units taken by %d keys, no victim forgotten (victims' least cost %d)", taken, 2*floodMaxKeys, least)

			// Flood keys at their limit: the bound.
			f = newFloodTables(t, p, core.MemoryOptions{MaxKeys: floodMaxKeys})
			victims, now = f.hammerVictims(t)
			for i := 0; i < 2*floodMaxKeys; i++ {
				now += int64(time.Microsecond)
				key := fmt.Sprint("flood-", i)
				for j := 0; j < 100 && floodDo(t, f.tb, store.OpTake, key, now).Allowed; j++ {
				}
			}
			forgotten := 0
			for _, v := range victims {
				cost := core.TableForgetCost(f.ref, v, now)
				var gotRef, gotTb int64
				for j := 0; j < 100 && floodDo(t, f.ref, store.OpTake, v, now).Allowed; j++ {
					gotRef++
				}
				for j := 0; j < 100 && floodDo(t, f.tb, store.OpTake, v, now).Allowed; j++ {
					gotTb++
				}
				if gotTb > gotRef {
					forgotten++
				}
				require.LessOrEqual(t, gotTb-gotRef, cost, "%s gained more than its cost", v)
			}
			t.Logf("flood at the limit: %d of %d victims forgotten", forgotten, len(victims))
		})
	}
}
