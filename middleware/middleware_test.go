package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllowThenDeny(t *testing.T) {
	clk := newClock()
	h := handler(t, limiter(t, clk, core.GCRA{Rate: core.PerMinute(2)}), middleware.Options{}, okHandler)
	for i := 0; i < 2; i++ {
		w := get(h, "192.0.2.1:1000")
		require.Equal(t, http.StatusOK, w.Code)
		assert.Equal(t, "2", w.Header().Get("X-RateLimit-Limit"))
		assert.Equal(t, []string{"1", "0"}[i], w.Header().Get("X-RateLimit-Remaining"))
		assert.Empty(t, w.Header().Get("Retry-After"))
	}
	w := get(h, "192.0.2.1:1001")
	require.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "30", w.Header().Get("Retry-After"))
	assert.Equal(t, "0", w.Header().Get("X-RateLimit-Remaining"))
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
	assert.Equal(t, middleware.ProblemType, body["type"])
	assert.Equal(t, float64(429), body["status"])
	assert.Equal(t, []any{"api"}, body["violated-policies"])
	// Another client is not affected.
	assert.Equal(t, http.StatusOK, get(h, "192.0.2.2:1000").Code)
	clk.Set(t0.Add(30 * time.Second))
	assert.Equal(t, http.StatusOK, get(h, "192.0.2.1:1000").Code)
}

func TestCustomDenied(t *testing.T) {
	h := handler(t, limiter(t, newClock(), core.GCRA{Rate: core.PerHour(1)}), middleware.Options{
		Denied: func(w http.ResponseWriter, _ *http.Request, res core.Result) {
			w.WriteHeader(http.StatusTeapot)
			_, _ = w.Write([]byte(res.Name))
		},
	}, okHandler)
	get(h, "192.0.2.1:1")
	w := get(h, "192.0.2.1:1")
	assert.Equal(t, http.StatusTeapot, w.Code)
	assert.Equal(t, "api", w.Body.String())
	assert.Equal(t, "3600", w.Header().Get("Retry-After"), "headers are set before Denied runs")
}

func TestNoKeyIsRefusedNeverPassed(t *testing.T) {
	lim := limiter(t, newClock(), core.GCRA{Rate: core.PerHour(1)})
	var errs []error
	h := handler(t, lim, middleware.Options{
		Key:     keyfunc.Header("X-API-Key"),
		OnError: func(_ *http.Request, err error) { errs = append(errs, err) },
	}, okHandler)
	w := get(h, "192.0.2.1:1")
	assert.Equal(t, http.StatusForbidden, w.Code)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], keyfunc.ErrNoKey)

	// With a fallback, the client IP limits keyless requests.
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	require.NoError(t, err)
	h = handler(t, lim, middleware.Options{Key: keyfunc.First(keyfunc.Header("X-API-Key"), ip)}, okHandler)
	assert.Equal(t, http.StatusOK, get(h, "192.0.2.9:1").Code)
	assert.Equal(t, http.StatusTooManyRequests, get(h, "192.0.2.9:2").Code)
}

func TestFailModes(t *testing.T) {
	var reported atomic.Int64
	onErr := func(_ *http.Request, err error) {
		if errors.Is(err, errDown) {
			reported.Add(1)
		}
	}
	closed := handler(t, failing{}, middleware.Options{OnError: onErr, FailRetryAfter: 1500 * time.Millisecond}, okHandler)
	w := get(closed, "192.0.2.1:1")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, "2", w.Header().Get("Retry-After"))
	open := handler(t, failing{}, middleware.Options{OnError: onErr, FailOpen: true}, okHandler)
	assert.Equal(t, http.StatusOK, get(open, "192.0.2.1:1").Code)
	dry := handler(t, failing{}, middleware.Options{OnError: onErr, DryRun: true}, okHandler)
	assert.Equal(t, http.StatusOK, get(dry, "192.0.2.1:1").Code)
	assert.Equal(t, int64(3), reported.Load())
}

// goneLimiter fails as the Redis store does when its caller gives up
// during the round trip: with the context's error.
type goneLimiter struct{}

func (goneLimiter) AllowN(ctx context.Context, _ string, _ int64) (core.Result, error) {
	if err := ctx.Err(); err != nil {
		return core.Result{}, err
	}
	return core.Result{}, errDown
}

func (goneLimiter) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, errDown
}

// TestFailOpenClientGone: a limiter error because the request's own
// context ended (the client hung up during the decision) is no fault of
// the limiter: the request is never served unchecked, even failing open,
// and nothing is written. Served, it let a client that hangs up at the
// right moment run the handler as often as it liked.
func TestFailOpenClientGone(t *testing.T) {
	var reported atomic.Int64
	served := 0
	h := handler(t, goneLimiter{}, middleware.Options{FailOpen: true,
		OnError: func(*http.Request, error) { reported.Add(1) }},
		http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 10 {
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/send", nil)
		r.RemoteAddr = "192.0.2.1:1"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.False(t, w.Flushed)
		assert.Empty(t, w.Body.String())
	}
	assert.Zero(t, served, "never served unchecked")
	assert.Zero(t, reported.Load(), "a client gone is no limiter fault")
	assert.Equal(t, http.StatusOK, get(h, "192.0.2.1:1").Code, "a real fault still fails open")
	assert.Equal(t, 1, served)
}

// TestFailDeadline: a request whose context passed a deadline (one its
// server set: the client is still there) while the store decided is a
// store fault like any other: reported, served failing open, otherwise
// answered 503. Only a client gone (context.Canceled) is neither. Left
// unanswered, the live client got an empty 200 its handler never wrote,
// and the slow store went unreported.
func TestFailDeadline(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0)) // passed already
	defer cancel()
	for _, open := range []bool{true, false} {
		var reported atomic.Int64
		served := 0
		h := handler(t, goneLimiter{}, middleware.Options{FailOpen: open,
			OnError: func(_ *http.Request, err error) {
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				reported.Add(1)
			}},
			http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }))
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
		r.RemoteAddr = "192.0.2.1:1"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.Equal(t, int64(1), reported.Load(), "FailOpen %v: reported", open)
		if open {
			assert.Equal(t, 1, served, "served failing open")
		} else {
			assert.Zero(t, served)
			assert.Equal(t, http.StatusServiceUnavailable, w.Code)
			assert.Equal(t, "1", w.Header().Get("Retry-After"))
		}
	}
}

func TestDryRunReportsButNeverBlocks(t *testing.T) {
	var denied atomic.Int64
	h := handler(t, limiter(t, newClock(), core.GCRA{Rate: core.PerHour(2)}), middleware.Options{
		DryRun:   true,
		OnDenied: func(*http.Request, core.Result) { denied.Add(1) },
	}, okHandler)
	for i := 0; i < 5; i++ {
		w := get(h, "192.0.2.1:1")
		assert.Equal(t, http.StatusOK, w.Code)
		assert.Empty(t, w.Header().Get("X-RateLimit-Limit"), "shadow mode changes no response")
	}
	assert.Equal(t, int64(3), denied.Load())
}

func TestSkipAndCost(t *testing.T) {
	h := handler(t, limiter(t, newClock(), core.FixedWindow{Quota: 10, Window: time.Hour}), middleware.Options{
		Skip: func(r *http.Request) bool { return r.URL.Path == "/health" },
		Cost: func(r *http.Request) int64 {
			if r.Method == http.MethodPost {
				return 4
			}
			return 1
		},
	}, okHandler)
	for i := 0; i < 20; i++ {
		r := httptest.NewRequest(http.MethodGet, "/health", nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, http.StatusOK, w.Code)
		require.Empty(t, w.Header().Get("X-RateLimit-Remaining"))
	}
	post := func() *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", nil))
		return w
	}
	assert.Equal(t, "6", post().Header().Get("X-RateLimit-Remaining"))
	assert.Equal(t, "2", post().Header().Get("X-RateLimit-Remaining"))
	assert.Equal(t, http.StatusTooManyRequests, post().Code)

	bad := handler(t, limiter(t, newClock(), core.GCRA{Rate: core.PerHour(2)}), middleware.Options{
		Cost: func(*http.Request) int64 { return 0 },
	}, okHandler)
	assert.Equal(t, http.StatusInternalServerError, get(bad, "192.0.2.1:1").Code, "a bad cost is never a bypass")
}

// 200 parallel wrong passwords against a limit of 5 let at most 5 reach
// the handler: the cost is taken before it runs.
func TestCountOnlyIfIsAtomic(t *testing.T) {
	lim := limiter(t, newClock(), core.GCRA{Rate: core.PerHour(5)})
	var reached atomic.Int64
	release := make(chan struct{})
	// One event per request decided: its handler started, or its response
	// (a denial) came back. Buffered: the admitted ones also send after
	// the release.
	decided := make(chan struct{}, 400)
	h := handler(t, lim, middleware.Options{CountIf: func(s int) bool { return s >= 400 }},
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			reached.Add(1)
			decided <- struct{}{}
			<-release
			w.WriteHeader(http.StatusUnauthorized)
		}))
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			get(h, "192.0.2.1:1")
			decided <- struct{}{}
		}()
	}
	// Let the handlers finish only after every request has been decided:
	// the admitted ones wait in the handler, so before the release each
	// request sends exactly one event.
	for range 200 {
		within.Recv(t, decided, "a request's decision")
	}
	close(release)
	within.Wait(t, &wg, "the 200 requests")
	assert.LessOrEqual(t, reached.Load(), int64(5))
	assert.Equal(t, int64(5), reached.Load())
}

// Requests whose status does not count are refunded.
func TestCountOnlyIfRefunds(t *testing.T) {
	lim := limiter(t, newClock(), core.GCRA{Rate: core.PerHour(3)})
	status := http.StatusOK
	h := handler(t, lim, middleware.Options{CountIf: func(s int) bool { return s >= 400 }},
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	for i := 0; i < 50; i++ {
		require.Equal(t, http.StatusOK, get(h, "192.0.2.1:1").Code, "successes never count")
	}
	status = http.StatusUnauthorized
	for i := 0; i < 3; i++ {
		require.Equal(t, http.StatusUnauthorized, get(h, "192.0.2.1:1").Code)
	}
	assert.Equal(t, http.StatusTooManyRequests, get(h, "192.0.2.1:1").Code)
}

// A shaping delay is waited out before the handler, and given back when
// the request is cancelled during the wait (timers on synctest's clock).
func TestShapingDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock()
		lim := limiter(t, clk, core.LeakyBucket{Rate: core.PerSecond(10), Capacity: 5})
		var served []time.Duration
		start := time.Now()
		h := handler(t, lim, middleware.Options{}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			served = append(served, time.Since(start))
		}))
		for i := 0; i < 3; i++ {
			require.Equal(t, http.StatusOK, get(h, "192.0.2.1:1").Code)
		}
		// The limiter's clock stands still: request i waits i·100 ms.
		assert.Equal(t, []time.Duration{0, 100 * time.Millisecond, 300 * time.Millisecond}, served)

		ctx, cancel := context.WithCancel(context.Background())
		r := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx)
		r.RemoteAddr = "192.0.2.1:1"
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(httptest.NewRecorder(), r)
		}()
		synctest.Wait()
		cancel()
		<-done
		assert.Len(t, served, 3, "a cancelled request never reaches the handler")
		res, err := lim.Peek(context.Background(), "192.0.2.1/32", 1)
		require.NoError(t, err)
		assert.Equal(t, int64(1), res.Remaining, "its slot was given back (0 had it been kept)")
	})
}

// The second request's 1 s shaping wait is on synctest's clock: instant.
func TestMaxDelayDenies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := limiter(t, newClock(), core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 10})
		h := handler(t, lim, middleware.Options{MaxDelay: 1500 * time.Millisecond}, okHandler)
		for i := 0; i < 2; i++ {
			require.Equal(t, http.StatusOK, get(h, "192.0.2.1:1").Code)
		}
		w := get(h, "192.0.2.1:1")
		assert.Equal(t, http.StatusTooManyRequests, w.Code, "a 2 s delay is beyond MaxDelay")
		assert.Equal(t, "1", w.Header().Get("Retry-After"))
	})
}

// A shaping delay beyond MaxDelay is refused by the limit that delays it,
// everywhere the denial is told. Before, only the Result's top level was
// turned into a denial: with LeakyBucket 1/s capacity 10 ("pace") and
// FixedWindow 1000/h ("hour"), a third request delayed 2 s past a MaxDelay
// of 1.5 s got a 429 with RateLimit `"pace";r=7;t=3, "hour";r=997;t=3355`
// and "violated-policies": [] (every limit said to admit it). Now pace
// reports r=0 and the wait of Retry-After, the problem body and OnDenied
// name pace as denying, and hour, which admitted it, keeps its figures.
func TestMaxDelayDenialNamesTheDelayingLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := core.NewPolicy("api",
			core.Limit{Name: "pace", Algorithm: core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 10}},
			core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 1000, Window: time.Hour}})
		require.NoError(t, err)
		lim, err := core.NewLimiter(p, core.WithClock(newClock()))
		require.NoError(t, err)
		var denied []core.Result
		h := handler(t, lim, middleware.Options{MaxDelay: 1500 * time.Millisecond,
			OnDenied: func(_ *http.Request, res core.Result) { denied = append(denied, res) }}, okHandler)
		for range 2 {
			require.Equal(t, http.StatusOK, get(h, "192.0.2.1:1").Code)
		}
		w := get(h, "192.0.2.1:1")
		require.Equal(t, http.StatusTooManyRequests, w.Code)
		assert.Equal(t, "1", w.Header().Get("Retry-After"))
		assert.Equal(t, "0", w.Header().Get("X-RateLimit-Remaining"))
		assert.Equal(t, `"pace";r=0;t=1, "hour";r=997;t=3355`, w.Header().Get("RateLimit"))
		var body struct {
			Violated []string `json:"violated-policies"`
		}
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
		assert.Equal(t, []string{"pace"}, body.Violated)
		require.Len(t, denied, 1)
		res := denied[0]
		assert.False(t, res.Allowed)
		assert.Equal(t, "pace", res.Name)
		assert.Equal(t, 500*time.Millisecond, res.RetryAfter)
		ls := res.Limits()
		assert.False(t, ls[0].Allowed)
		assert.Zero(t, ls[0].Delay)
		assert.True(t, ls[1].Allowed)
	})
}

func TestNewErrors(t *testing.T) {
	_, err := middleware.New(nil, middleware.Options{})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = middleware.NewSelect(nil, middleware.Options{})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = middleware.New(failing{}, middleware.Options{MaxDelay: -1})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
}
