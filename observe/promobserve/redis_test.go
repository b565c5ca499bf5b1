package promobserve_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisStoreScraped: a real Redis store's decisions, latency and
// outage, as scraped.
func TestRedisStoreScraped(t *testing.T) {
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	c := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, promobserve.Options{})
	require.NoError(t, err)
	s, err := redisstore.New(c, redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 1, Timeout: 30 * time.Second, Observer: obs})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	l, err := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 1}}),
		core.WithStore(s), core.WithObserver(obs))
	require.NoError(t, err)
	ctx := context.Background()
	for range 3 { // allowed, denied by Redis, denied by the deny cache
		_, err = l.Allow(ctx, "k")
		require.NoError(t, err)
	}
	fams := scrape(t, reg)
	assert.Equal(t, map[string]float64{
		"limit=api,policy=api,result=allowed,source=store,store=redis": 1,
		"limit=api,policy=api,result=denied,source=store,store=redis":  1,
		"limit=api,policy=api,result=denied,source=cache,store=redis":  1,
	}, values(fams, "floodgate_decisions_total"))
	assert.Equal(t, uint64(2), series(fams, "floodgate_store_latency_seconds")["source=store,store=redis"].GetHistogram().GetSampleCount())
	assert.Equal(t, map[string]float64{"store=redis": 1}, values(fams, "floodgate_store_up"))

	p.Refuse(true)
	p.Drop()
	for i := 0; i < 100 && !s.Down(); i++ {
		_, err = l.Allow(ctx, fmt.Sprint("down", i))
		require.NoError(t, err)
	}
	require.True(t, s.Down())
	fams = scrape(t, reg)
	assert.Equal(t, map[string]float64{"store=redis": 0}, values(fams, "floodgate_store_up"))
	assert.Equal(t, map[string]float64{"store=redis": 1}, values(fams, "floodgate_store_fallback"))
	assert.Positive(t, values(fams, "floodgate_decisions_total")["limit=api,policy=api,result=allowed,source=fallback,store=redis"])

	p.Refuse(false)
	i := 0
	within.Until(t, "the store back on Redis", func() bool {
		if !s.Down() {
			return true
		}
		i++
		_, _ = l.Allow(ctx, fmt.Sprint("up", i)) // a decision, so that a trial probes Redis
		return false
	})
	fams = scrape(t, reg)
	assert.Equal(t, map[string]float64{"store=redis": 1}, values(fams, "floodgate_store_up"))
	assert.Equal(t, map[string]float64{"store=redis": 0}, values(fams, "floodgate_store_fallback"))
	assert.Equal(t, map[string]float64{"change=unreachable,store=redis": 1, "change=reachable,store=redis": 1},
		values(fams, "floodgate_store_changes_total"))
}
