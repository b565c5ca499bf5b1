package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// observed is a core.Observer keeping what it is told.
type observed struct {
	mu        sync.Mutex
	decisions []core.Decision
	events    []core.StoreEvent
}

func (o *observed) Decided(_ context.Context, d core.Decision) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.decisions = append(o.decisions, d)
}

func (o *observed) StoreChanged(e core.StoreEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, e)
}

// last returns the last decision.
func (o *observed) last() core.Decision {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.decisions[len(o.decisions)-1]
}

// changes returns the changes reported so far.
func (o *observed) changes() []core.StoreChange {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []core.StoreChange
	for _, e := range o.events {
		out = append(out, e.Change)
	}
	return out
}

// TestObserverSwitches: a Redis that goes away and comes back is reported
// once each way, with the failure mode; decisions say who decided them
// (Redis, then the local fallback, then Redis again), and Redis's with a
// latency.
func TestObserverSwitches(t *testing.T) {
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	obs := &observed{}
	s, _ := faultStore(t, defaultClient(t, p.Addr()), redisstore.Options{
		FailureMode: redisstore.FailLocal, Timeout: noDeadline, Observer: obs,
	})
	assert.Equal(t, "redis", s.Kind())
	l, err := core.NewLimiter(wide, core.WithStore(s), core.WithObserver(obs))
	require.NoError(t, err)
	ctx := context.Background()

	_, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	d := obs.last()
	assert.Equal(t, "redis", d.Store)
	assert.Equal(t, core.SourceStore, d.Source)
	assert.Equal(t, core.VerdictAllowed, d.Verdict)
	assert.Positive(t, d.Latency)

	p.Refuse(true)
	p.Drop()
	for i := 0; i < 100 && !s.Down(); i++ {
		_, err = l.Allow(ctx, fmt.Sprint("down", i))
		require.NoError(t, err)
		assert.Equal(t, core.SourceFallback, obs.last().Source, "a fault is decided by the fallback")
	}
	require.True(t, s.Down())
	for i := range 10 {
		r, err := l.Allow(ctx, fmt.Sprint("open", i))
		require.NoError(t, err)
		assert.Equal(t, core.SourceFallback, r.Source())
		assert.Equal(t, core.SourceFallback, obs.last().Source)
	}
	require.Equal(t, []core.StoreChange{core.StoreUnreachable}, obs.changes())
	e := obs.events[0]
	assert.Equal(t, "redis", e.Store)
	assert.Equal(t, "local", e.Mode)
	assert.True(t, e.Fallback)
	assert.Error(t, e.Err)
	assert.False(t, e.At.IsZero())

	p.Refuse(false)
	untilOnRedis(t, s, l, 30*time.Second)
	assert.Equal(t, core.SourceStore, obs.last().Source)
	assert.Equal(t, []core.StoreChange{core.StoreUnreachable, core.StoreReachable}, obs.changes())
}

// TestObserverFailClosed: failing closed is no fallback; its decisions
// are failures.
func TestObserverFailClosed(t *testing.T) {
	obs := &observed{}
	s, _ := faultStore(t, defaultClient(t, deadAddr), redisstore.Options{Observer: obs})
	l, err := core.NewLimiter(wide, core.WithStore(s), core.WithObserver(obs))
	require.NoError(t, err)
	for i := 0; i < 100 && !s.Down(); i++ {
		_, err = l.Allow(context.Background(), fmt.Sprint(i))
		require.ErrorIs(t, err, redisstore.ErrUnavailable)
		d := obs.last()
		assert.Equal(t, core.VerdictFailed, d.Verdict)
		assert.ErrorIs(t, d.Err, redisstore.ErrUnavailable)
	}
	require.True(t, s.Down())
	require.Equal(t, []core.StoreChange{core.StoreUnreachable}, obs.changes())
	assert.Equal(t, "fail-closed", obs.events[0].Mode)
	assert.False(t, obs.events[0].Fallback)
}

// TestObserverDenyCache: a denial answered by the deny cache is marked so.
func TestObserverDenyCache(t *testing.T) {
	srv := redistest.Start(t)
	obs := &observed{}
	s := newStore(t, srv.Client(t), redisstore.Options{Observer: obs})
	l, err := core.NewLimiter(core.MustPolicy("dc", core.Limit{Name: "dc", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 1}}),
		core.WithStore(s), core.WithObserver(obs))
	require.NoError(t, err)
	ctx := context.Background()
	for i, want := range []struct {
		verdict core.Verdict
		source  core.Source
	}{{core.VerdictAllowed, core.SourceStore}, {core.VerdictDenied, core.SourceStore}, {core.VerdictDenied, core.SourceCache}} {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		d := obs.last()
		assert.Equal(t, want.verdict, d.Verdict, "decision %d", i)
		assert.Equal(t, want.source, d.Source, "decision %d", i)
		assert.Equal(t, want.source, r.Source(), "decision %d", i)
	}
	assert.Empty(t, obs.changes())
}

// TestObserverStoreChanges: a slow link, an evicting Redis and a key
// conflict are reported once each.
func TestObserverStoreChanges(t *testing.T) {
	t.Run("slow", func(t *testing.T) {
		srv := redistest.Start(t)
		p := faultproxy.Start(t, srv.Addr())
		p.SetLatency(15 * time.Millisecond)
		obs := &observed{}
		s, _ := faultStore(t, defaultClient(t, p.Addr()), redisstore.Options{Timeout: 20 * time.Millisecond, Observer: obs})
		require.ErrorIs(t, s.Check(context.Background()), redisstore.ErrTimeoutBelowRTT)
		assert.Equal(t, []core.StoreChange{core.StoreSlow}, obs.changes())
	})
	t.Run("evicting", func(t *testing.T) {
		srv := redistest.Start(t, "--maxmemory-policy", "allkeys-lru")
		obs := &observed{}
		s, _ := faultStore(t, srv.Client(t), redisstore.Options{Timeout: noDeadline, Observer: obs})
		require.NoError(t, s.Check(context.Background()))
		assert.Equal(t, []core.StoreChange{core.StoreEvicting}, obs.changes())
	})
	t.Run("key conflict", func(t *testing.T) {
		srv := redistest.Start(t)
		c := srv.Client(t)
		ctx := context.Background()
		obs := &observed{}
		s, _ := faultStore(t, c, redisstore.Options{Prefix: "kc:", Timeout: noDeadline, Observer: obs})
		l := faultLimiter(t, s, core.MustPolicy("kc", core.Limit{Name: "kc", Algorithm: core.FixedWindow{Limit: 4, Window: time.Hour}}))
		_, err := l.Allow(ctx, "victim")
		require.NoError(t, err)
		keys, err := c.Keys(ctx, "kc:*").Result()
		require.NoError(t, err)
		require.Len(t, keys, 1)
		require.NoError(t, c.Del(ctx, keys[0]).Err())
		require.NoError(t, c.LPush(ctx, keys[0], "x").Err())
		for range 3 {
			_, err = l.Allow(ctx, "victim")
			require.ErrorIs(t, err, redisstore.ErrKeyConflict)
		}
		assert.Equal(t, []core.StoreChange{core.StoreKeyConflict}, obs.changes())
	})
}

func TestObserverTypedNil(t *testing.T) {
	_, err := redisstore.New(defaultClient(t, deadAddr), redisstore.Options{Observer: (*observed)(nil)})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}
