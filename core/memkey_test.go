package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
)

// otherStore is a MemoryStore whose tables are not the in-memory store's
// own type to the Limiter: TakeBytes takes the path of other stores.
type otherStore struct{ *core.MemoryStore }

func (o otherStore) Bind(p *core.Policy) (store.Table, error) {
	t, err := o.MemoryStore.Bind(p)
	return struct{ store.Table }{t}, err
}

// TakeBytes decides as Take for string(key): one limiter taking by bytes
// and by string in turn for a key, and another taking by string only,
// give the same Results step by step, on the in-memory store (one-word
// and locked policies, with a shadow limit, with an observer and
// without) and on another store alike. On the in-memory store a Result of TakeBytes is refunded
// under string(key), once, and refused under another key. (The other
// store here is the in-memory table behind the store.Table interface,
// which does not carry a refund's eviction epoch: refunds are not
// compared there.)
func TestTakeBytesIsTakeOfTheString(t *testing.T) {
	policies := map[string][]core.Limit{
		"gcra":  {{Name: "g", Algorithm: core.GCRA{Rate: core.PerSecond(2), Burst: 3}}},
		"token": {{Name: "tb", Algorithm: core.TokenBucket{Rate: core.PerSecond(2), Burst: 3}}},
		"two": {
			{Name: "fast", Algorithm: core.GCRA{Rate: core.PerSecond(4), Burst: 2}},
			{Name: "slow", Algorithm: core.FixedWindow{Quota: 5, Window: time.Minute}},
		},
		"shadow": {
			{Name: "g", Algorithm: core.GCRA{Rate: core.PerSecond(2), Burst: 3}},
			{Name: "s", Algorithm: core.FixedWindow{Quota: 4, Window: time.Minute}, Shadow: true},
		},
	}
	stores := map[string]func() core.Store{
		"memory": func() core.Store { return mustMemoryStore(t) },
		"other":  func() core.Store { return otherStore{mustMemoryStore(t)} },
	}
	for pname, limits := range policies {
		for sname, newStore := range stores {
			for _, observed := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/observed=%t", pname, sname, observed), func(t *testing.T) {
					p, err := core.NewPolicy("p", limits...)
					require.NoError(t, err)
					clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
					opts := []core.Option{core.WithClock(clk), core.WithStore(newStore())}
					if observed {
						opts = append(opts, core.WithObserver(&nopObserver{}))
					}
					l, err := core.NewLimiter(p, opts...)
					require.NoError(t, err)
					ref, err := core.NewLimiter(p, core.WithClock(clk))
					require.NoError(t, err)
					ctx := context.Background()
					key := []byte("198.51.100.7/32")
					for i := range 40 {
						var got core.Result
						if i%2 == 0 {
							require.NoError(t, l.TakeBytes(ctx, key, 1, &got))
						} else {
							require.NoError(t, l.Take(ctx, string(key), 1, &got))
						}
						want, err := ref.Allow(ctx, string(key))
						require.NoError(t, err)
						assert.Equal(t, want.Limits(), got.Limits(), "step %d", i)
						assert.Equal(t, want.Allowed, got.Allowed, "step %d", i)
						assert.Equal(t, want.ShadowLimits(), got.ShadowLimits(), "step %d", i)
						if i%2 == 0 && got.Allowed && sname == "memory" {
							_, err := l.Refund(ctx, "198.51.100.8/32", got)
							require.ErrorIs(t, err, core.ErrRefundForeign, "step %d", i)
							_, err = l.Refund(ctx, string(key), got)
							require.NoError(t, err, "step %d", i)
							_, err = ref.Refund(ctx, string(key), want)
							require.NoError(t, err, "step %d", i)
							_, err = l.Refund(ctx, string(key), got)
							require.ErrorIs(t, err, core.ErrRefunded, "step %d", i)
						}
						clk.Advance(100 * time.Millisecond)
					}
				})
			}
		}
	}
}

// TakeBytes counts in a shadow limit under the key's own state: what a
// peek of the key by string, and a take by another limiter's string key,
// read there.
func TestTakeBytesShadowStateIsTheKeys(t *testing.T) {
	p := core.MustPolicy("p",
		core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerSecond(1000), Burst: 1000}},
		core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: 4, Window: time.Minute}, Shadow: true})
	l, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(coretest.T0)))
	require.NoError(t, err)
	ctx := context.Background()
	var res core.Result
	for range 2 {
		require.NoError(t, l.TakeBytes(ctx, []byte("k"), 1, &res))
	}
	require.Equal(t, int64(2), res.ShadowLimits()[0].Remaining)
	peek, err := l.Peek(ctx, "k", 1)
	require.NoError(t, err)
	require.Equal(t, int64(1), peek.ShadowLimits()[0].Remaining, "a peek of cost 1 reports what a take would leave")
	require.NoError(t, l.Take(ctx, "k", 1, &res))
	require.Equal(t, int64(1), res.ShadowLimits()[0].Remaining)
}

// TakeBytes of an existing key on the in-memory store allocates nothing,
// its key in a buffer on the stack.
func TestTakeBytesAllocations(t *testing.T) {
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerSecond(1_000_000)}}))
	require.NoError(t, err)
	ctx := context.Background()
	var res core.Result
	require.NoError(t, l.TakeBytes(ctx, []byte("198.51.100.7/32"), 1, &res))
	allocs := testing.AllocsPerRun(100, func() {
		var buf [32]byte
		key := append(buf[:0], "198.51.100.7/32"...)
		if err := l.TakeBytes(ctx, key, 1, &res); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

func mustMemoryStore(t *testing.T) *core.MemoryStore {
	t.Helper()
	ms, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	return ms
}
