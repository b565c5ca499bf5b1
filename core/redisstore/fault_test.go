package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailureModes: with Redis gone, each mode does what it says, and the
// switch is reported once.
func TestFailureModes(t *testing.T) {
	srv := startRedis(t)
	c := srv.Client(t)
	ctx := context.Background()
	p := core.MustPolicy("fm", core.Limit{Name: "fm", Algorithm: core.FixedWindow{Limit: 10, Window: time.Hour}})
	var switches atomic.Int64
	stores := map[redisstore.FailureMode]*redisstore.Store{}
	for _, mode := range []redisstore.FailureMode{redisstore.FailClosed, redisstore.FailOpen, redisstore.FailLocal} {
		stores[mode] = newStore(t, c, redisstore.Options{
			FailureMode: mode, LocalShare: 0.5, Timeout: 50 * time.Millisecond, ProbeInterval: time.Hour,
			OnSwitch: func(s redisstore.Switch) { switches.Add(1) },
		})
	}
	srv.Kill()
	for mode, s := range stores {
		l := limiterOn(t, s, p)
		admitted := 0
		for i := range 12 {
			start := time.Now()
			r, err := l.Allow(ctx, "k")
			assert.Less(t, time.Since(start), 60*time.Millisecond, "%v call %d", mode, i)
			switch mode {
			case redisstore.FailClosed:
				require.ErrorIs(t, err, redisstore.ErrUnavailable)
				require.False(t, r.Allowed)
			default:
				require.NoError(t, err)
			}
			if r.Allowed {
				admitted++
			}
		}
		switch mode {
		case redisstore.FailOpen:
			assert.Equal(t, 12, admitted)
		case redisstore.FailLocal:
			assert.Equal(t, 5, admitted, "half of the limit locally")
		}
		assert.True(t, s.Down())
	}
	assert.Equal(t, int64(3), switches.Load())
}

type sample struct {
	start   time.Time
	latency time.Duration
	err     error
}

// outage runs decisions on 8 goroutines while fault is done to the server,
// and checks the latency bound during it, recovery within 1 s after it and
// the goroutine count afterwards.
func outage(t *testing.T, fault func(srv *redistest.Server) (from, to time.Time)) {
	srv := startRedis(t)
	c := srv.Client(t)
	const timeout = 50 * time.Millisecond
	s := newStore(t, c, redisstore.Options{FailureMode: redisstore.FailClosed, Timeout: timeout, ProbeInterval: 50 * time.Millisecond})
	l := limiterOn(t, s, core.MustPolicy("o", core.Limit{Name: "o", Algorithm: core.GCRA{Rate: core.PerSecond(1e6), Burst: 1e6}}))
	ctx := context.Background()
	_, err := l.Allow(ctx, "warm")
	require.NoError(t, err)
	baseline := runtime.NumGoroutine()

	var stop atomic.Bool
	var mu sync.Mutex
	var samples []sample
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []sample
			for i := 0; !stop.Load() && i < 1e6; i++ {
				start := time.Now()
				r, err := l.Allow(ctx, fmt.Sprint("k", g, i%100))
				if err != nil && r.Allowed {
					err = fmt.Errorf("an error reported as allowed: %w", err)
				}
				local = append(local, sample{start, time.Since(start), err})
				time.Sleep(time.Millisecond)
			}
			mu.Lock()
			samples = append(samples, local...)
			mu.Unlock()
		}()
	}
	time.Sleep(300 * time.Millisecond)
	from, to := fault(srv)
	time.Sleep(1500 * time.Millisecond)
	stop.Store(true)
	wg.Wait()

	var during []time.Duration
	after, afterOK := 0, 0
	for _, x := range samples {
		if x.err != nil && !errors.Is(x.err, redisstore.ErrUnavailable) {
			t.Fatalf("an error that is not ErrUnavailable: %v", x.err)
		}
		if !x.start.Before(from) && x.start.Before(to) {
			during = append(during, x.latency)
		}
		if x.start.After(to.Add(time.Second)) {
			after++
			if x.err == nil {
				afterOK++
			}
		}
	}
	require.NotEmpty(t, during)
	slices.Sort(during)
	p99 := during[len(during)*99/100]
	t.Logf("%d decisions during the fault, p99 %v, max %v; %d/%d on Redis from 1 s after it", len(during), p99, during[len(during)-1], afterOK, after)
	assert.LessOrEqual(t, p99, timeout+10*time.Millisecond)
	require.Positive(t, after)
	assert.GreaterOrEqual(t, float64(afterOK), 0.99*float64(after), "back on Redis within 1 s")
	assert.False(t, s.Down())
	// Polled here: assert.Eventually would count its own goroutine.
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(3 * time.Second); n > baseline && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(20 * time.Millisecond)
	}
	if !assert.LessOrEqual(t, n, baseline, "goroutines back to the baseline") {
		buf := make([]byte, 1<<20)
		t.Logf("%s", buf[:runtime.Stack(buf, true)])
	}
	checkTTLs(t, c)
}

// TestOutageKill: SIGKILL Redis for 2 s, then restart it on the same port.
func TestOutageKill(t *testing.T) {
	outage(t, func(srv *redistest.Server) (time.Time, time.Time) {
		from := time.Now()
		srv.Kill()
		time.Sleep(2 * time.Second)
		srv.Restart()
		return from, time.Now()
	})
}

// TestOutageStop: SIGSTOP Redis for 5 s.
func TestOutageStop(t *testing.T) {
	outage(t, func(srv *redistest.Server) (time.Time, time.Time) {
		from := time.Now()
		srv.Signal(syscall.SIGSTOP)
		time.Sleep(5 * time.Second)
		srv.Signal(syscall.SIGCONT)
		return from, time.Now()
	})
}
