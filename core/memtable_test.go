package core

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var memT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano()

func memTestTable(t *testing.T, p *Policy, opts MemoryOptions) *memTable {
	t.Helper()
	ms, err := NewMemoryStore(opts)
	require.NoError(t, err)
	tb, err := ms.Bind(p)
	require.NoError(t, err)
	return tb.(*memTable)
}

func memTake(tb *memTable, key string, now, cost int64) Result {
	var r Result
	tb.do(&store.Request{Op: store.OpTake, Key: key, Now: now, Cost: cost}, 0, &r)
	return r
}

// memDropPolicies are policies whose keys recover at varied times.
func memDropPolicies(t *testing.T) []*Policy {
	var ps []*Policy
	for _, ls := range [][]Limit{
		{{Name: "g", Algorithm: GCRA{Rate: PerSecond(2), Burst: 3}}},
		{{Name: "lb", Algorithm: LeakyBucket{Rate: PerSecond(5), Capacity: 4, NoDelay: 2}}},
		{{Name: "h", Algorithm: Hybrid{Quota: 3, Window: 2 * time.Second}}},
		{
			{Name: "fast", Algorithm: GCRA{Rate: PerSecond(4), Burst: 2}},
			{Name: "slow", Algorithm: GCRA{Rate: PerMinute(20)}},
		},
	} {
		p, err := NewPolicy("drop", ls...)
		require.NoError(t, err)
		ps = append(ps, p)
	}
	return ps
}

// Dropping recovered entries decides exactly as never dropping: a table
// with tiny shards (rebuilt, and so swept, all the time) against a plain
// map of states that keeps everything.
func TestMemoryDropIsExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range memDropPolicies(t) {
		for sched := 0; sched < 200; sched++ {
			tb := memTestTable(t, p, MemoryOptions{MaxKeys: 4096, Shards: 1})
			ref := map[string][]int64{}
			now := memT0
			for step := 0; step < 200; step++ {
				now += rng.Int64N(int64(800 * time.Millisecond))
				key := fmt.Sprint(rng.IntN(40))
				cost := 1 + rng.Int64N(2)
				st, ok := ref[key]
				if !ok {
					st = make([]int64, p.words)
					ref[key] = st
				}
				var want Result
				p.take(st, now, cost, true, &want)
				got := memTake(tb, key, now, cost)
				if got.Allowed == want.Allowed && got.Remaining == want.Remaining && got.RetryAfter == want.RetryAfter &&
					got.ResetAfter == want.ResetAfter && got.Delay == want.Delay {
					continue // testify, at every step, cost more than the step
				}
				require.Equal(t, want.Allowed, got.Allowed, "policy %v schedule %d step %d", p.limits[0].Name, sched, step)
				require.Equal(t, want.Remaining, got.Remaining)
				require.Equal(t, want.RetryAfter, got.RetryAfter)
				require.Equal(t, want.ResetAfter, got.ResetAfter)
				require.Equal(t, want.Delay, got.Delay)
			}
		}
	}
}

// A flood of 1,000,000 new keys never takes the table past MaxKeys, and in
// RefuseNew mode a victim key held at its limit stays denied throughout.
func TestMemoryFloodRefuseNew(t *testing.T) {
	t.Parallel()
	p, err := Single("flood", GCRA{Rate: PerHour(1), Burst: 3})
	require.NoError(t, err)
	const maxKeys = 10_000
	tb := memTestTable(t, p, MemoryOptions{MaxKeys: maxKeys, WhenFull: RefuseNew})
	for i := 0; i < 3; i++ {
		require.True(t, memTake(tb, "victim", memT0, 1).Allowed)
	}
	flood := 1_000_000
	if testing.Short() {
		flood = 100_000
	}
	refused := 0
	for i := 0; i < flood; i++ {
		now := memT0 + int64(i)*int64(time.Microsecond) // 1 s in all: nothing recovers
		if !memTake(tb, "attacker-"+strconv.Itoa(i), now, 1).Allowed {
			refused++
		}
		if i%1000 == 0 {
			require.False(t, memTake(tb, "victim", now, 1).Allowed, "victim admitted during the flood at %d", i)
			require.LessOrEqual(t, tb.Len(), maxKeys)
		}
	}
	assert.LessOrEqual(t, tb.Len(), maxKeys)
	assert.Greater(t, tb.Len(), maxKeys*9/10, "the shards fill to nearly MaxKeys")
	assert.Equal(t, flood-(tb.Len()-1), refused)
	r := memTake(tb, "newcomer", memT0+int64(time.Second), 1)
	require.False(t, r.Allowed)
	assert.Greater(t, r.RetryAfter, time.Duration(0))
	// Once the entries recover, new keys are admitted again.
	assert.True(t, memTake(tb, "newcomer", memT0+int64(4*time.Hour), 1).Allowed)
}

// By default new keys keep being admitted, MaxKeys still holds, and the
// entry forgotten is the one whose forgetting admits least.
func TestMemoryFloodEvictCheapest(t *testing.T) {
	p, err := Single("evict", GCRA{Rate: PerMinute(1), Burst: 10})
	require.NoError(t, err)
	tb := memTestTable(t, p, MemoryOptions{MaxKeys: 4, Shards: 1})
	// Keys a..d recover 1, 4, 2 and 3 minutes from now.
	for k, cost := range map[string]int64{"a": 1, "b": 4, "c": 2, "d": 3} {
		require.True(t, memTake(tb, k, memT0, cost).Allowed)
	}
	require.Equal(t, 4, tb.Len())
	require.True(t, memTake(tb, "e", memT0, 1).Allowed)
	require.Equal(t, 4, tb.Len())
	// "a" owes least (1 unit; the others 4, 2 and 3): it is forgotten, the
	// others are not.
	for k, rem := range map[string]int64{"a": 10, "b": 6, "c": 8, "d": 7, "e": 9} {
		var r Result
		tb.do(&store.Request{Op: store.OpPeek, Key: k, Now: memT0, Cost: 1}, 0, &r)
		assert.Equal(t, rem, r.Remaining+1, "key %s", k)
	}
	for i := 0; i < 10_000; i++ {
		require.True(t, memTake(tb, fmt.Sprint("n", i), memT0, 1).Allowed)
		require.LessOrEqual(t, tb.Len(), 4)
	}
}

// A shard emptied by a rebuild must still notice when the entries inserted
// after it recover (a full shard once refused new keys forever).
func TestMemoryFullShardRecovers(t *testing.T) {
	p, err := Single("one", GCRA{Rate: PerMinute(1)})
	require.NoError(t, err)
	tb := memTestTable(t, p, MemoryOptions{MaxKeys: 1, Shards: 1, WhenFull: RefuseNew})
	require.True(t, memTake(tb, "a", memT0, 1).Allowed)
	r := memTake(tb, "b", memT0+int64(time.Second), 1)
	require.False(t, r.Allowed, "full: a has not recovered")
	assert.Equal(t, 59*time.Second, r.RetryAfter, "b may retry when a recovers")
	require.True(t, memTake(tb, "b", memT0+int64(time.Hour), 1).Allowed)
	require.True(t, memTake(tb, "c", memT0+int64(2*time.Hour), 1).Allowed)
	assert.Equal(t, 1, tb.Len())
}

func TestMemoryOptionsValidation(t *testing.T) {
	for _, o := range []MemoryOptions{
		{MaxKeys: -1}, {Shards: 3}, {MaxKeys: 4, Shards: 8}, {WhenFull: 9},
	} {
		_, err := NewMemoryStore(o)
		assert.ErrorIs(t, err, ErrInvalidConfig, "%+v", o)
	}
	ms, err := NewMemoryStore(MemoryOptions{MaxKeys: 10})
	require.NoError(t, err)
	assert.Equal(t, 1, ms.opts.Shards, "at least 16 keys per shard")
	_, err = ms.Bind(nil)
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// A key's home slot is the first of its cache line when whole slots fill
// a line: a one-word policy (two-word slots) starts each probe at a slot
// index that is a multiple of 4, a three-word one (four-word slots) of 2;
// other strides start anywhere. Every home is within the array.
func TestMemoryHomeIsALineStart(t *testing.T) {
	assert.Equal(t, 3, lineMaskOf(2))
	assert.Equal(t, 0, lineMaskOf(3))
	assert.Equal(t, 1, lineMaskOf(4))
	assert.Equal(t, 0, lineMaskOf(5))
	assert.Equal(t, 0, lineMaskOf(8))
	gcra, err := Single("one", GCRA{Rate: PerMinute(1)})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, shards := range []int{1, 64} {
		tb := memTestTable(t, gcra, MemoryOptions{MaxKeys: 1 << 16, Shards: shards})
		require.Equal(t, 2, tb.stride)
		for _, c := range []int{8, 9, 11, 4099, 21846} {
			for range 1000 {
				i := tb.home(rng.Uint64(), c)
				require.Zero(t, i%4, "cap %d", c)
				require.Less(t, i, c)
			}
		}
	}
}
