package redisstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/canary"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fault tests run a store behind internal/faultproxy or against a fake
// RESP server (fakeredis_test.go). Their clients have go-redis's default
// options (no ContextTimeoutEnabled, 3 s reads), as a new user's would.

// logCount is a slog handler counting records by level and message.
type logCount struct {
	mu    sync.Mutex
	lines []string
}

func (*logCount) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCount) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.lines = append(l.lines, r.Level.String()+" "+r.Message)
	l.mu.Unlock()
	return nil
}
func (l *logCount) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCount) WithGroup(string) slog.Handler      { return l }

// count returns the lines containing sub.
func (l *logCount) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

func (l *logCount) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// noDeadline is the Timeout of the stores of the fault tests that are not
// about time: a bound no loaded machine reaches, so that a slow round trip
// is never taken for a fault (the store's default, 100 ms, is one a loaded
// machine reaches).
const noDeadline = 30 * time.Second

// deadAddr is an address nothing answers on: port 1 is privileged, and no
// test listens on it (a free port found a moment ago may be taken by a
// server of another test, of this package or one running alongside).
const deadAddr = "127.0.0.1:1"

// defaultClient is a go-redis client of addr with go-redis's defaults.
func defaultClient(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// patientClient is a go-redis client of addr whose dials, reads and writes
// time out after noDeadline: the client of a store of noDeadline in a test
// that is not about time. A store's Timeout does not lift its client's own
// timeouts: with go-redis's defaults (defaultClient) a read gave up after
// 5 s, which a loaded machine reaches (a start-up check at -cpu 1 failed
// with an i/o timeout once in three runs of the package).
func patientClient(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: noDeadline, ReadTimeout: noDeadline, WriteTimeout: noDeadline})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// faultStore is a store of c with opts (a prefix of the test's own), its
// log counted.
func faultStore(t testing.TB, c redis.UniversalClient, opts redisstore.Options) (*redisstore.Store, *logCount) {
	t.Helper()
	logs := &logCount{}
	opts.Logger = slog.New(logs)
	if opts.Prefix == "" {
		opts.Prefix = "fg:" + t.Name() + ":"
	}
	s, err := redisstore.New(c, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, logs
}

func faultLimiter(t testing.TB, s core.Store, p *core.Policy) *core.Limiter {
	t.Helper()
	l, err := core.NewLimiter(p, core.WithStore(s))
	require.NoError(t, err)
	return l
}

var wide = core.MustPolicy("wide", core.Limit{Name: "w", Algorithm: core.GCRA{Rate: core.PerSecond(1e6), Burst: 1e6}})

// decideAll has goroutines goroutines make n decisions each on l (keys of
// their own), requires each to be decided without an error, and, when
// locally is set, admitted (wide's limits admit everything a fallback
// decides). It returns the slowest decision's latency.
func decideAll(t *testing.T, l *core.Limiter, goroutines, n int, locally bool) time.Duration {
	t.Helper()
	ctx := context.Background()
	var worst atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range n {
				start := time.Now()
				r, err := l.Allow(ctx, fmt.Sprint(g, ":", i))
				d := time.Since(start)
				for w := worst.Load(); int64(d) > w && !worst.CompareAndSwap(w, int64(d)); w = worst.Load() {
				}
				assert.NoError(t, err)
				if locally {
					assert.True(t, r.Allowed, "decided locally")
				}
			}
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
	return time.Duration(worst.Load())
}

// headroom is the canary bound of a timing claim at rtt with the default
// Options.Timeout (100 ms): what remains of the deadline after the round
// trip, shared by the hops a decision takes in a test (the caller, the
// pipeline worker, the proxy each way, redis-server and the reply's
// wake-up), each of which a loaded machine may delay by the canary's
// figure.
func headroom(rtt time.Duration) time.Duration { return (100*time.Millisecond - rtt) / 6 }

// untilOnRedis makes decisions every 2 ms until one is decided by Redis
// (the store not down, no error), at most within limit; it returns how
// long that took.
func untilOnRedis(t *testing.T, s *redisstore.Store, l *core.Limiter, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for i := 0; time.Since(start) < limit; i++ {
		_, err := l.Allow(context.Background(), fmt.Sprint("r", i))
		if err == nil && !s.Down() {
			return time.Since(start)
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("not back on Redis within %v (down %v, stats %+v)", limit, s.Down(), s.Stats())
	return 0
}

// TestRTT: with default options (store and client), decisions behind a
// link of 1, 10, 20 and 40 ms round trip are decided by Redis, and the
// store keeps its connections (a store that dropped a connection at every
// late reply redialled on every decision and never recovered at 20 ms).
// The rates and the connections kept are timing claims (see
// canary.Rounds); that a late reply never costs its connection is asserted
// always. Its subtests, each on its own server and proxy, run together
// (NoCheck's too: rttNoCheck), apart from the package's parallel tests.
func TestRTT(t *testing.T) {
	for _, rtt := range []time.Duration{20 * time.Millisecond, 40 * time.Millisecond} {
		t.Run("NoCheck/"+rtt.String(), func(t *testing.T) {
			t.Parallel()
			rttNoCheck(t, rtt)
		})
	}
	for _, rtt := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond} {
		t.Run(rtt.String(), func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			p := faultproxy.Start(t, srv.Addr())
			p.SetLatency(rtt / 2)
			c := defaultClient(t, p.Addr())
			s, logs := faultStore(t, c, redisstore.Options{})
			l := faultLimiter(t, s, wide)
			ctx := context.Background()
			checked := false
			canary.Rounds(t, headroom(rtt), func() error {
				if !checked {
					if err := s.Check(ctx); err != nil {
						return fmt.Errorf("Check: %w", err)
					}
					checked = true
					st := s.Stats()
					require.GreaterOrEqual(t, st.RTT, rtt)
					require.False(t, st.SlowLink)
				} else {
					// A round starts on Redis: an overloaded round may
					// have opened the breaker (recovering is
					// TestDroppedConnections's claim, not this one's).
					untilOnRedis(t, s, l, 30*time.Second)
				}
				conns, switching := p.Accepted(), logs.count("switching")
				const n = 40
				var ok atomic.Int64
				var wg sync.WaitGroup
				for g := range 8 { // sequential decisions on 8 goroutines
					wg.Go(func() {
						for i := range n / 8 {
							r, err := l.Allow(ctx, fmt.Sprint(g, ":", i))
							if err == nil && r.Allowed {
								ok.Add(1)
							}
						}
					})
				}
				within.Wait(t, &wg, "the test's goroutines")
				rate := float64(ok.Load()) / n
				t.Logf("RTT %v: %d/%d decided by Redis (%.0f%%), %d connections, stats %+v", rtt, ok.Load(), n, 100*rate, p.Accepted(), s.Stats())
				// A late reply never costs its connection: at most the
				// workers' own, whatever the machine.
				require.LessOrEqual(t, p.Accepted()-conns, int64(8))
				switch {
				case rate < 0.95:
					return fmt.Errorf("%d/%d decided by Redis", ok.Load(), n)
				case p.Accepted() != conns:
					return fmt.Errorf("%d connections opened by decisions or probes, none kept by Check", p.Accepted()-conns)
				case logs.count("switching") != switching:
					return fmt.Errorf("the store switched to its failure mode")
				}
				return nil
			})
		})
	}
}

// rttNoCheck (TestRTT/NoCheck): without Check (no connection open, no
// function loaded: the first decisions pay their set-up and may miss the
// deadline), the store settles on Redis and stays there: the late replies
// of the first decisions close the breaker, and their connections stay
// open. Each round is a new store (a timing claim: see canary.Rounds).
func rttNoCheck(t *testing.T, rtt time.Duration) {
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	p.SetLatency(rtt / 2)
	canary.Rounds(t, headroom(rtt), func() error {
		s, _ := faultStore(t, defaultClient(t, p.Addr()), redisstore.Options{})
		l := faultLimiter(t, s, wide)
		const rounds = 10
		var ok [rounds]atomic.Int64
		for i := range rounds { // 8 decisions at once every 50 ms
			time.Sleep(50 * time.Millisecond)
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					if r, err := l.Allow(context.Background(), fmt.Sprint(g, ":", i)); err == nil && r.Allowed && !s.Down() {
						ok[i].Add(1)
					}
				})
			}
			within.Wait(t, &wg, "the test's goroutines")
		}
		var per []int64
		late := int64(0)
		for i := range ok {
			per = append(per, ok[i].Load())
			if i >= rounds/2 {
				late += ok[i].Load()
			}
		}
		t.Logf("RTT %v without Check: decided by Redis per round of 8: %v; %d connections; stats %+v", rtt, per, p.Accepted(), s.Stats())
		if late < 38 {
			return fmt.Errorf("%d of the last 5 rounds' 40 decisions on Redis", late)
		}
		return nil
	})
}

// TestSlowLink: a Timeout below the round trip is reported: an error from
// Check, one log line, Stats.SlowLink.
func TestSlowLink(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	p.SetLatency(15 * time.Millisecond)
	c := defaultClient(t, p.Addr())
	s, logs := faultStore(t, c, redisstore.Options{Timeout: 20 * time.Millisecond})
	err := s.Check(context.Background())
	require.ErrorIs(t, err, redisstore.ErrTimeoutBelowRTT)
	require.True(t, s.Stats().SlowLink)
	require.Equal(t, 1, logs.count("not below Options.Timeout"))
	// Decisions miss their deadline; the link is reported once, not per decision.
	l := faultLimiter(t, s, wide)
	for i := range 5 {
		_, _ = l.Allow(context.Background(), fmt.Sprint(i))
	}
	require.Equal(t, 1, logs.count("not below Options.Timeout"))
	require.Positive(t, s.Stats().Timeouts)
}

// TestStallDeadline: a stalled Redis (connections open, nothing answered)
// with a client that does not bound its reads by the context: every
// decision is answered by the store's deadline, the pipeline workers stuck
// on the stall stay bounded, and the store is back on Redis as soon as the
// stall ends. Before, a decision waited the client's 3 s read timeout.
func TestStallDeadline(t *testing.T) {
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	c := defaultClient(t, p.Addr())
	const timeout = 50 * time.Millisecond
	s, logs := faultStore(t, c, redisstore.Options{Timeout: timeout, FailureMode: redisstore.FailLocal, LocalShare: 1,
		ProbeInterval: 20 * time.Millisecond, ProbeMax: 50 * time.Millisecond})
	l := faultLimiter(t, s, wide)
	ctx := context.Background()
	_, err := l.Allow(ctx, "warm")
	require.NoError(t, err)
	baseline, conns := runtime.NumGoroutine(), p.Accepted()

	cn := canary.Start()
	p.Stall()
	worst := decideAll(t, l, 64, 5, true)
	t.Logf("slowest decision during the stall: %v (timeout %v); stats %+v", worst, timeout, s.Stats())
	assert.True(t, s.Down())
	// 320 decisions in the stall: at most a connection per pipeline
	// worker is stuck (each costing the proxy 4 goroutines), not one per
	// decision. The deciding goroutines may take a moment to exit after
	// wg.Wait: the bound is awaited (a leak of one goroutine per decision
	// never meets it).
	assert.LessOrEqual(t, p.Accepted()-conns, int64(8))
	waitFor(t, func() bool { return runtime.NumGoroutine() <= baseline+1+8*6 }, // +1: the canary
		"goroutines: %d, at most %d expected", func() []any { return []any{runtime.NumGoroutine(), baseline + 1 + 8*6} })

	p.Resume()
	took := untilOnRedis(t, s, l, 30*time.Second)
	t.Logf("back on Redis %v after the stall", took)
	if cn.Kept(t, 100*time.Millisecond) {
		// Answered by the deadline (plus scheduling); it was the
		// client's 3 s read timeout. Back within ProbeMax and a round
		// trip.
		assert.Less(t, worst, time.Second)
		assert.Less(t, took, time.Second)
	}
	assert.Equal(t, 1, logs.count("switching"), "one line per switch")
	assert.Equal(t, 1, logs.count("back to redis"))
}

// waitFor polls cond every millisecond until it holds, failing t (with
// the message format and the args args returns) if it does not within
// 30 s: a bound for conditions a correct build meets at once or nearly,
// which no loaded machine reaches.
func waitFor(t *testing.T, cond func() bool, format string, args func() []any) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatalf(format, args()...)
		}
	}
}

// TestDroppedConnections: connections dropped under traffic go to the
// failure mode, never an error other than ErrUnavailable, and the store is
// back on Redis within 1 s of Redis being reachable again. Each outage
// lasts until the store has seen it (it is down), however slowly the
// machine runs.
func TestDroppedConnections(t *testing.T) {
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	c := defaultClient(t, p.Addr())
	s, _ := faultStore(t, c, redisstore.Options{ProbeInterval: 20 * time.Millisecond, ProbeMax: 100 * time.Millisecond})
	l := faultLimiter(t, s, wide)
	ctx := context.Background()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var decided atomic.Int64
	// The traffic lasts until the test stops it, also when a check fails
	// (the cleanup runs before the store's). It was 1e5 decisions per
	// goroutine: a store that is down fails decisions at once, and during
	// the slow outages of a loaded machine the goroutines ran out, so
	// that nothing met the next outage ("the store never saw the outage",
	// 2 runs in 6 under load). A failed decision is followed by a
	// millisecond's pause, so that the failing goroutines do not spin.
	t.Cleanup(func() {
		stop.Store(true)
		within.Wait(t, &wg, "the test's goroutines")
	})
	for g := range 8 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				r, err := l.Allow(ctx, fmt.Sprint(g, ":", i))
				if err != nil {
					assert.ErrorIs(t, err, redisstore.ErrUnavailable)
					assert.False(t, r.Allowed)
					time.Sleep(time.Millisecond)
				}
				decided.Add(1)
			}
		})
	}
	waitFor(t, func() bool { return decided.Load() >= 50 }, "the deciding goroutines never got 50 decisions through", func() []any { return nil })
	for range 3 {
		cn := canary.Start()
		p.Refuse(true)
		p.Drop()
		waitFor(t, s.Down, "the store never saw the outage (stats %+v, %d decisions)", func() []any { return []any{s.Stats(), decided.Load()} })
		p.Refuse(false)
		took := untilOnRedis(t, s, l, 30*time.Second)
		t.Logf("back on Redis %v after the drop", took)
		if cn.Kept(t, 100*time.Millisecond) {
			assert.Less(t, took, time.Second)
		}
	}
	stop.Store(true)
	within.Wait(t, &wg, "the test's goroutines")
	checkTTLs(t, srv.Client(t))
}

// TestFailureModes: with Redis gone, each mode does what it says, and the
// switch is reported once per store. Decisions are answered within about
// Timeout (asserted when the machine keeps up).
func TestFailureModes(t *testing.T) {
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	c := defaultClient(t, p.Addr())
	ctx := context.Background()
	pol := core.MustPolicy("fm", core.Limit{Name: "fm", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour, Anchored: true}})
	var switches atomic.Int64
	stores := map[redisstore.FailureMode]*redisstore.Store{}
	for _, mode := range []redisstore.FailureMode{redisstore.FailClosed, redisstore.FailOpen, redisstore.FailLocal} {
		stores[mode], _ = faultStore(t, c, redisstore.Options{
			FailureMode: mode, LocalShare: 0.5, Timeout: 50 * time.Millisecond, ProbeInterval: time.Hour,
			OnSwitch: func(s redisstore.Switch) { switches.Add(1) },
		})
	}
	p.Refuse(true)
	p.Drop()
	cn := canary.Start()
	var worst time.Duration
	for mode, s := range stores {
		l := faultLimiter(t, s, pol)
		admitted := 0
		for range 12 {
			start := time.Now()
			r, err := l.Allow(ctx, "k")
			worst = max(worst, time.Since(start))
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
			assert.Equal(t, 5, admitted, "half of the limit locally, faults before the switch included")
		}
		assert.True(t, s.Down())
	}
	assert.Equal(t, int64(3), switches.Load())
	t.Logf("slowest decision: %v (Timeout 50 ms)", worst)
	if cn.Kept(t, 100*time.Millisecond) {
		assert.Less(t, worst, time.Second)
	}
}

// TestDownAtStart: Check reports a Redis that does not answer with
// ErrUnavailable, and decisions then log one line, not one per decision.
func TestDownAtStart(t *testing.T) {
	t.Parallel()
	c := defaultClient(t, deadAddr)
	s, logs := faultStore(t, c, redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 1})
	// go-redis's default client dials a refused address 5 times, 100 ms
	// apart, and sends a command 4 times: Check returns at its context's
	// end, which was 1 s of this test's time for the same verdict.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := s.Check(ctx)
	require.ErrorIs(t, err, redisstore.ErrUnavailable)
	l := faultLimiter(t, s, wide)
	for i := range 50 {
		_, err := l.Allow(context.Background(), fmt.Sprint(i))
		require.NoError(t, err)
	}
	require.True(t, s.Down())
	require.Equal(t, 1, logs.total(), "one line: the switch")
}

// TestEvictionPolicy: Check warns about a Redis that evicts any key
// (allkeys-*), and not about noeviction.
func TestEvictionPolicy(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"allkeys-lru", "noeviction"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t, "--maxmemory-policy", policy)
			s, logs := faultStore(t, srv.Client(t), redisstore.Options{Timeout: noDeadline})
			require.NoError(t, s.Check(context.Background()))
			st := s.Stats()
			require.Equal(t, policy, st.EvictionPolicy)
			require.Equal(t, policy == "allkeys-lru", st.Evicts)
			require.Equal(t, map[bool]int{true: 1, false: 0}[st.Evicts], logs.count("evicts keys"))
		})
	}
}

// cutOff refuses and drops every connection through p, and has l decide
// (a fail-local store: without error) until s has gone off Redis, within
// 100 decisions.
func cutOff(t *testing.T, p *faultproxy.Proxy, s *redisstore.Store, l *core.Limiter) {
	t.Helper()
	p.Refuse(true)
	p.Drop()
	for i := 0; i < 100 && !s.Down(); i++ {
		_, err := l.Allow(context.Background(), fmt.Sprint("down", i))
		require.NoError(t, err)
	}
	require.True(t, s.Down())
}
