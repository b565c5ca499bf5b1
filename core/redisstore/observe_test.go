package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// last returns the last decision o recorded.
func last(o *coretest.Observer) core.Decision {
	d := o.Decisions()
	return d[len(d)-1]
}

// changes returns the store changes o recorded.
func changes(o *coretest.Observer) []core.StoreChange {
	var out []core.StoreChange
	for _, e := range o.Events() {
		out = append(out, e.Change)
	}
	return out
}

// TestObserverSwitches: a Redis that goes away and comes back is reported
// once each way, with the failure mode; decisions say who decided them
// (Redis, then the local fallback, then Redis again), and Redis's with a
// latency.
func TestObserverSwitches(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	obs := &coretest.Observer{}
	s, _ := faultStore(t, patientClient(t, p.Addr()), redisstore.Options{
		FailureMode: redisstore.FailLocal, LocalShare: 1, Timeout: noDeadline, Observer: obs,
	})
	assert.Equal(t, "redis", s.Kind())
	l, err := core.NewLimiter(wide, core.WithStore(s), core.WithObserver(obs))
	require.NoError(t, err)
	ctx := context.Background()

	_, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	d := last(obs)
	assert.Equal(t, "redis", d.Store)
	assert.Equal(t, core.SourceStore, d.Source)
	assert.Equal(t, core.VerdictAllowed, d.Verdict)
	assert.Positive(t, d.Latency)

	p.Refuse(true)
	p.Drop()
	for i := 0; i < 100 && !s.Down(); i++ {
		_, err = l.Allow(ctx, fmt.Sprint("down", i))
		require.NoError(t, err)
		assert.Equal(t, core.SourceFallback, last(obs).Source, "a fault is decided by the fallback")
	}
	require.True(t, s.Down())
	for i := range 10 {
		r, err := l.Allow(ctx, fmt.Sprint("open", i))
		require.NoError(t, err)
		assert.Equal(t, core.SourceFallback, r.Source())
		assert.Equal(t, core.SourceFallback, last(obs).Source)
	}
	require.Equal(t, []core.StoreChange{core.StoreUnreachable}, changes(obs))
	e := obs.Events()[0]
	assert.Equal(t, "redis", e.Store)
	assert.Equal(t, "local", e.Mode)
	assert.True(t, e.Fallback)
	assert.Error(t, e.Err)
	assert.False(t, e.At.IsZero())

	p.Refuse(false)
	untilOnRedis(t, s, l, 30*time.Second)
	assert.Equal(t, core.SourceStore, last(obs).Source)
	assert.Equal(t, []core.StoreChange{core.StoreUnreachable, core.StoreReachable}, changes(obs))
}

// TestObserverFailClosed: failing closed is no fallback; its decisions
// are failures.
func TestObserverFailClosed(t *testing.T) {
	t.Parallel()
	obs := &coretest.Observer{}
	s, _ := faultStore(t, defaultClient(t, deadAddr), redisstore.Options{Observer: obs})
	l, err := core.NewLimiter(wide, core.WithStore(s), core.WithObserver(obs))
	require.NoError(t, err)
	for i := 0; i < 100 && !s.Down(); i++ {
		_, err = l.Allow(context.Background(), fmt.Sprint(i))
		require.ErrorIs(t, err, redisstore.ErrUnavailable)
		d := last(obs)
		assert.Equal(t, core.VerdictFailed, d.Verdict)
		assert.ErrorIs(t, d.Err, redisstore.ErrUnavailable)
	}
	require.True(t, s.Down())
	require.Equal(t, []core.StoreChange{core.StoreUnreachable}, changes(obs))
	assert.Equal(t, "fail-closed", obs.Events()[0].Mode)
	assert.False(t, obs.Events()[0].Fallback)
}

// TestObserverDenyCache: a denial answered by the deny cache is marked so.
func TestObserverDenyCache(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	obs := &coretest.Observer{}
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
		d := last(obs)
		assert.Equal(t, want.verdict, d.Verdict, "decision %d", i)
		assert.Equal(t, want.source, d.Source, "decision %d", i)
		assert.Equal(t, want.source, r.Source(), "decision %d", i)
	}
	assert.Empty(t, changes(obs))
}

// TestObserverStoreChanges: a slow link, an evicting Redis and a key
// conflict are reported once each.
func TestObserverStoreChanges(t *testing.T) {
	t.Parallel()
	t.Run("slow", func(t *testing.T) {
		srv := redistest.Start(t)
		p := faultproxy.Start(t, srv.Addr())
		p.SetLatency(15 * time.Millisecond)
		obs := &coretest.Observer{}
		s, _ := faultStore(t, defaultClient(t, p.Addr()), redisstore.Options{Timeout: 20 * time.Millisecond, Observer: obs})
		require.ErrorIs(t, s.Check(context.Background()), redisstore.ErrTimeoutBelowRTT)
		assert.Equal(t, []core.StoreChange{core.StoreSlow}, changes(obs))
	})
	t.Run("evicting", func(t *testing.T) {
		srv := redistest.Start(t, "--maxmemory-policy", "allkeys-lru")
		obs := &coretest.Observer{}
		s, _ := faultStore(t, srv.Client(t), redisstore.Options{Timeout: noDeadline, Observer: obs})
		require.NoError(t, s.Check(context.Background()))
		assert.Equal(t, []core.StoreChange{core.StoreEvicting}, changes(obs))
	})
	t.Run("key conflict", func(t *testing.T) {
		srv := redistest.Start(t)
		c := srv.Client(t)
		ctx := context.Background()
		obs := &coretest.Observer{}
		s, _ := faultStore(t, c, redisstore.Options{Prefix: "kc:", Timeout: noDeadline, Observer: obs})
		l := faultLimiter(t, s, core.MustPolicy("kc", core.Limit{Name: "kc", Algorithm: core.FixedWindow{Quota: 4, Window: time.Hour, Anchored: true}}))
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
		assert.Equal(t, []core.StoreChange{core.StoreKeyConflict}, changes(obs))
	})
}

func TestObserverTypedNil(t *testing.T) {
	t.Parallel()
	_, err := redisstore.New(defaultClient(t, deadAddr), redisstore.Options{Observer: (*coretest.Observer)(nil)})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}
