package promobserve_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/floodgate-go/floodgate/observe/slogobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAttackTwoRedisStoresOneObserver: two Redis stores of one process
// (a login policy on one Redis, the API on another, say) report to one
// observer. Store A loses its Redis, then store B, then A's comes back.
// Before, both shared the gauges and the log state of their kind,
// "redis": floodgate_store_up{store="redis"} read 1 and store_fallback 0
// while B was still down and deciding on its fallback, and slogobserve
// logged A's outage and return and never B's (2 lines, B's outage
// hidden: it repeated A's "unreachable"). Now the kind's gauges report its
// worst store (up 0, fallback 1 until B is back) and each store's changes
// are logged (3 lines).
func TestAttackTwoRedisStoresOneObserver(t *testing.T) {
	reg := prometheus.NewRegistry()
	prom, err := promobserve.New(reg, promobserve.Options{})
	require.NoError(t, err)
	var logs lockedBuffer
	slogs := slogobserve.New(slog.New(slog.NewTextHandler(&logs, nil)))
	both := observers{prom, slogs}
	ctx := context.Background()
	type side struct {
		p *faultproxy.Proxy
		s *redisstore.Store
		l *core.Limiter
	}
	mk := func(name string) side {
		srv := redistest.Start(t)
		p := faultproxy.Start(t, srv.Addr())
		c := redis.NewClient(&redis.Options{Addr: p.Addr()})
		t.Cleanup(func() { _ = c.Close() })
		s, err := redisstore.New(c, redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 1, Timeout: 30 * time.Second, Observer: both,
			Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		l, err := core.NewLimiter(core.MustPolicy(name, core.Limit{Name: name, Algorithm: core.GCRA{Rate: core.PerSecond(1e6), Burst: 1e6}}),
			core.WithStore(s), core.WithObserver(prom))
		require.NoError(t, err)
		_, err = l.Allow(ctx, "k")
		require.NoError(t, err)
		return side{p, s, l}
	}
	a, b := mk("login"), mk("api")
	down := func(x side) {
		x.p.Refuse(true)
		x.p.Drop()
		for i := 0; i < 100 && !x.s.Down(); i++ {
			_, err := x.l.Allow(ctx, fmt.Sprint("down", i))
			require.NoError(t, err)
		}
		require.True(t, x.s.Down())
	}
	down(a)
	down(b)
	a.p.Refuse(false)
	i := 0
	within.Until(t, "store A back on Redis", func() bool {
		if !a.s.Down() {
			return true
		}
		i++
		_, _ = a.l.Allow(ctx, fmt.Sprint("up", i))
		return false
	})
	require.True(t, b.s.Down(), "B is still down")
	fams := scrape(t, reg)
	assert.Equal(t, map[string]float64{"store=redis": 0}, values(fams, "floodgate_store_up"), "B is down")
	assert.Equal(t, map[string]float64{"store=redis": 1}, values(fams, "floodgate_store_fallback"), "B's fallback decides")
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	assert.Len(t, lines, 3, "A down, B down, A back:\n%s", logs.String())
}

// observers is a core.Observer telling each of its own.
type observers []core.Observer

func (os observers) Decided(ctx context.Context, d core.Decision) {
	for _, o := range os {
		o.Decided(ctx, d)
	}
}

func (os observers) StoreChanged(e core.StoreEvent) {
	for _, o := range os {
		o.StoreChanged(e)
	}
}
