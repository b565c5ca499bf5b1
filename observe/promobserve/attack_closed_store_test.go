package promobserve_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackClosedStoreNotDownForever: an application replaces its Redis
// store (a new client after a failover, say) while the old one is down,
// and closes the old one. Before, the closed store never reported again,
// and the gauges of its kind, the worst of the kind's stores, kept it down
// for the life of the process: floodgate_store_up{store="redis"} 0 and
// store_fallback 1 while the new store decided on Redis (every store
// since made and closed also kept an entry in the observer). Now a closed
// store says so (core.StoreClosed) and the observer forgets it: up 1,
// fallback 0.
func TestAttackClosedStoreNotDownForever(t *testing.T) {
	reg := prometheus.NewRegistry()
	prom, err := promobserve.New(reg, promobserve.Options{})
	require.NoError(t, err)
	ctx := context.Background()
	srv := redistest.Start(t)
	p := core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.GCRA{Rate: core.PerSecond(1e6), Burst: 1e6}})
	mk := func(addr string) (*redisstore.Store, *core.Limiter) {
		c := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { _ = c.Close() })
		s, err := redisstore.New(c, redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 1, Timeout: 30 * time.Second,
			Observer: prom, Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		l, err := core.NewLimiter(p, core.WithStore(s), core.WithObserver(prom))
		require.NoError(t, err)
		_, err = l.Allow(ctx, "k")
		require.NoError(t, err)
		return s, l
	}

	proxy := faultproxy.Start(t, srv.Addr())
	old, l := mk(proxy.Addr())
	proxy.Refuse(true)
	proxy.Drop()
	for i := 0; i < 100 && !old.Down(); i++ {
		_, err := l.Allow(ctx, fmt.Sprint("down", i))
		require.NoError(t, err)
	}
	require.True(t, old.Down())
	require.NoError(t, old.Close())

	repl, _ := mk(srv.Addr())
	require.False(t, repl.Down())
	fams := scrape(t, reg)
	assert.Equal(t, map[string]float64{"store=redis": 1}, values(fams, "floodgate_store_up"), "no store of the kind is down")
	assert.Equal(t, map[string]float64{"store=redis": 0}, values(fams, "floodgate_store_fallback"), "no store decides on its fallback")
}
