package core_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestObserverSeesEveryTake(t *testing.T) {
	ctx := context.Background()
	clk := coretest.NewClock(coretest.T0)
	rec := &coretest.Observer{}
	p := core.MustPolicy("api",
		core.Limit{Name: "burst", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 2}},
		core.Limit{Name: "daily", Algorithm: core.FixedWindow{Quota: 3, Window: 24 * time.Hour}})
	l, err := core.NewLimiter(p, core.WithClock(clk), core.WithObserver(rec))
	require.NoError(t, err)

	_, err = l.Allow(ctx, "client-secret-1")
	require.NoError(t, err)
	_, err = l.AllowN(ctx, "client-secret-1", 1)
	require.NoError(t, err)
	var res core.Result
	require.NoError(t, l.Take(ctx, "client-secret-1", 1, &res)) // the burst denies
	require.False(t, res.Allowed)
	clk.Advance(10 * time.Second)
	_, err = l.Allow(ctx, "client-secret-1") // the daily limit binds: 0 left
	require.NoError(t, err)
	_, err = l.AllowN(ctx, "client-secret-1", 0)
	require.ErrorIs(t, err, core.ErrInvalidCost)

	got := rec.Decisions()
	require.Len(t, got, 5)
	assert.NotContains(t, fmt.Sprintf("%+v", got), "secret", "an observer never sees the key")
	want := []core.Decision{
		{Policy: "api", Limit: 0, LimitName: "burst", Verdict: core.VerdictAllowed, Cost: 1, Remaining: 1, Store: "memory"},
		{Policy: "api", Limit: 0, LimitName: "burst", Verdict: core.VerdictAllowed, Cost: 1, Remaining: 0, Store: "memory"},
		{Policy: "api", Limit: 0, LimitName: "burst", Verdict: core.VerdictDenied, Cost: 1, RetryAfter: time.Second, Store: "memory"},
		{Policy: "api", Limit: 1, LimitName: "daily", Verdict: core.VerdictAllowed, Cost: 1, Remaining: 0, Store: "memory"},
		{Policy: "api", Limit: -1, Verdict: core.VerdictFailed, Cost: 0, Store: "memory"},
	}
	for i := range want {
		d := got[i]
		if want[i].Verdict == core.VerdictFailed {
			require.ErrorIs(t, d.Err, core.ErrInvalidCost)
			d.Err = nil
		}
		assert.Equal(t, want[i], d, "decision %d", i)
	}
}

func TestObserverNotToldOfPeeksRefundsResets(t *testing.T) {
	ctx := context.Background()
	rec := &coretest.Observer{}
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 5}}),
		core.WithClock(coretest.NewClock(coretest.T0)), core.WithObserver(rec))
	require.NoError(t, err)
	res, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	_, err = l.Peek(ctx, "k", 1)
	require.NoError(t, err)
	_, err = l.Refund(ctx, "k", res)
	require.NoError(t, err)
	require.NoError(t, l.Reset(ctx, "k"))
	assert.Len(t, rec.Decisions(), 1)
}

func TestObserverSeesShaping(t *testing.T) {
	ctx := context.Background()
	rec := &coretest.Observer{}
	l, err := core.NewLimiter(core.MustPolicy("shape", core.Limit{Name: "q", Algorithm: core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 5}}),
		core.WithClock(coretest.NewClock(coretest.T0)), core.WithObserver(rec))
	require.NoError(t, err)
	for range 2 {
		_, err = l.Allow(ctx, "k")
		require.NoError(t, err)
	}
	got := rec.Decisions()
	require.Len(t, got, 2)
	assert.Equal(t, core.VerdictAllowed, got[0].Verdict)
	assert.Equal(t, core.VerdictShaped, got[1].Verdict)
	assert.Equal(t, time.Second, got[1].Delay)
}

// sourceStore is a Store whose table answers every request as admitted by
// the source it is told, or fails with err.
type sourceStore struct {
	src core.Source
	err error
}

func (s *sourceStore) Kind() string { return "fake" }

func (s *sourceStore) Bind(p *core.Policy) (store.Table, error) { return &sourceTable{s, p}, nil }

type sourceTable struct {
	s *sourceStore
	p *core.Policy
}

func (t *sourceTable) Do(_ context.Context, req store.Request) (store.Decision, error) {
	if t.s.err != nil {
		return store.Decision{}, t.s.err
	}
	return store.Decision{At: req.Now, Outcomes: [store.MaxLimits]store.Outcome{{Allowed: true, Remaining: 7}}, Source: t.s.src}, nil
}

func TestObserverSeesOtherStores(t *testing.T) {
	ctx := context.Background()
	p := core.MustPolicy("p", core.Limit{Name: "p", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 5}})
	errDown := errors.New("down")
	for _, tc := range []struct {
		name    string
		store   *sourceStore
		verdict core.Verdict
	}{
		{"store", &sourceStore{src: core.SourceStore}, core.VerdictAllowed},
		{"cache", &sourceStore{src: core.SourceCache}, core.VerdictAllowed},
		{"fallback", &sourceStore{src: core.SourceFallback}, core.VerdictAllowed},
		{"error", &sourceStore{err: errDown}, core.VerdictFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &coretest.Observer{}
			l, err := core.NewLimiter(p, core.WithStore(tc.store), core.WithObserver(rec))
			require.NoError(t, err)
			res, err := l.Allow(ctx, "k")
			require.ErrorIs(t, err, tc.store.err)
			got := rec.Decisions()
			require.Len(t, got, 1)
			d := got[0]
			assert.Equal(t, "fake", d.Store)
			assert.Equal(t, tc.verdict, d.Verdict)
			assert.Equal(t, tc.store.src, d.Source)
			assert.Equal(t, tc.store.src, res.Source())
			assert.GreaterOrEqual(t, d.Latency, time.Duration(0))
			assert.Equal(t, int64(1), d.Cost)
			if tc.store.err != nil {
				assert.ErrorIs(t, d.Err, errDown)
				assert.Equal(t, -1, d.Limit)
			} else {
				assert.Equal(t, int64(7), d.Remaining)
			}
		})
	}
}

// TestSourceOfReusedResult: a Result reused across limiters tells its own
// decision's source.
func TestSourceOfReusedResult(t *testing.T) {
	ctx := context.Background()
	p := core.MustPolicy("p", core.Limit{Name: "p", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 5}})
	fb, err := core.NewLimiter(p, core.WithStore(&sourceStore{src: core.SourceFallback}))
	require.NoError(t, err)
	mem, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(coretest.T0)))
	require.NoError(t, err)
	var res core.Result
	for _, k := range []string{"new", "existing"} {
		require.NoError(t, fb.Take(ctx, k, 1, &res))
		require.Equal(t, core.SourceFallback, res.Source())
		require.NoError(t, mem.Take(ctx, k, 1, &res))
		assert.Equal(t, core.SourceStore, res.Source(), k)
		require.NoError(t, fb.Take(ctx, k, 1, &res))
		r, err := mem.Peek(ctx, k, 1)
		require.NoError(t, err)
		assert.Equal(t, core.SourceStore, r.Source())
	}
}

func TestStoreKindOfStoresWithoutKind(t *testing.T) {
	rec := &coretest.Observer{}
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 5}}),
		core.WithStore(kindless{}), core.WithObserver(rec))
	require.NoError(t, err)
	_, _ = l.Allow(context.Background(), "k")
	require.Len(t, rec.Decisions(), 1)
	assert.Equal(t, "core_test.kindless", rec.Decisions()[0].Store)
}

type kindless struct{}

func (kindless) Bind(p *core.Policy) (store.Table, error) {
	return (&sourceStore{}).Bind(p)
}

func TestWithObserverRefusesTypedNil(t *testing.T) {
	p := core.MustPolicy("p", core.Limit{Name: "p", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 5}})
	_, err := core.NewLimiter(p, core.WithObserver((*coretest.Observer)(nil)))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	l, err := core.NewLimiter(p, core.WithObserver(nil)) // none
	require.NoError(t, err)
	_, err = l.Allow(context.Background(), "k")
	require.NoError(t, err)
}

// nopObserver counts decisions without allocating.
type nopObserver struct{ n, denied int }

func (o *nopObserver) Decided(_ context.Context, d core.Decision) {
	o.n++
	if d.Verdict == core.VerdictDenied {
		o.denied++
	}
}

func (*nopObserver) StoreChanged(core.StoreEvent) {}

// TestObservedDecisionsAllocateNothing: an observer costs no allocation on
// the memory store, with or without one (TestDecisionsAllocateNothing is
// without).
func TestObservedDecisionsAllocateNothing(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	ctx := context.Background()
	for _, a := range coretest.Algorithms() {
		t.Run(a.Name, func(t *testing.T) {
			obs := &nopObserver{}
			l, err := core.NewLimiter(core.MustPolicy("allocs", a),
				core.WithClock(coretest.NewClock(coretest.T0)), core.WithObserver(obs))
			require.NoError(t, err)
			var res core.Result
			require.NoError(t, l.Take(ctx, "k", 1, &res))
			allocs := testing.AllocsPerRun(200, func() { _ = l.Take(ctx, "k", 1, &res) })
			require.Zero(t, allocs)
			require.Zero(t, testing.AllocsPerRun(50, func() { _, _ = l.Allow(ctx, "k") }))
			require.Positive(t, obs.n)
		})
	}
}

func TestMemoryStoreUsage(t *testing.T) {
	ctx := context.Background()
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 100, Shards: 4})
	require.NoError(t, err)
	clk := coretest.NewClock(coretest.T0)
	a, err := core.NewLimiter(core.MustPolicy("a", core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 5}}),
		core.WithStore(ms), core.WithClock(clk))
	require.NoError(t, err)
	b, err := core.NewLimiter(core.MustPolicy("b", core.Limit{Name: "b", Algorithm: core.FixedWindow{Quota: 5, Window: time.Hour}}),
		core.WithStore(ms), core.WithClock(clk))
	require.NoError(t, err)
	for _, k := range []string{"x", "y", "z"} {
		_, err = a.Allow(ctx, k)
		require.NoError(t, err)
	}
	_, err = b.Allow(ctx, "x")
	require.NoError(t, err)
	assert.Equal(t, []core.MemoryUsage{{Policy: "a", Keys: 3, MaxKeys: 100}, {Policy: "b", Keys: 1, MaxKeys: 100}},
		ms.AppendUsage(nil))
	assert.Equal(t, "memory", ms.Kind())

	// A limiter no longer used is forgotten with its table.
	runtime.KeepAlive(b)
	b = nil
	var got []core.MemoryUsage
	for range 20 { // bounded: a weak pointer clears at the first GC that finds its table unreachable
		runtime.GC()
		if got = ms.AppendUsage(got[:0]); len(got) == 1 {
			break
		}
	}
	assert.Equal(t, []core.MemoryUsage{{Policy: "a", Keys: 3, MaxKeys: 100}}, got)
	runtime.KeepAlive(a)
	assert.Nil(t, (*core.MemoryStore)(nil).AppendUsage(nil))
}

func TestObserverNames(t *testing.T) {
	for v, s := range map[core.Verdict]string{core.VerdictAllowed: "allowed", core.VerdictShaped: "shaped",
		core.VerdictDenied: "denied", core.VerdictFailed: "error", 99: "unknown"} {
		assert.Equal(t, s, v.String())
	}
	for v, s := range map[core.Source]string{core.SourceStore: "store", core.SourceCache: "cache",
		core.SourceFallback: "fallback", 99: "unknown"} {
		assert.Equal(t, s, v.String())
	}
	for v, s := range map[core.StoreChange]string{core.StoreUnreachable: "unreachable", core.StoreReachable: "reachable",
		core.StoreSlow: "slow", core.StoreSlowEnded: "slow-ended", core.StoreKeyConflict: "key-conflict",
		core.StoreEvicting: "evicting", core.StoreErrorReply: "error-reply", core.StoreClosed: "closed", 0: "unknown"} {
		assert.Equal(t, s, v.String())
	}
}
