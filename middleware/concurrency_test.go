package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func memSlots(t testing.TB, limit int) *inflight.Memory {
	t.Helper()
	m, err := inflight.NewMemory(limit, inflight.MemoryOptions{MaxWaiters: 1000})
	require.NoError(t, err)
	return m
}

func concurrency(t testing.TB, l middleware.ConcurrencyLimiter, opts middleware.ConcurrencyOptions, next http.Handler) http.Handler {
	t.Helper()
	c, err := middleware.NewConcurrency(l, opts)
	require.NoError(t, err)
	return c.Handler(next)
}

const (
	client    = "192.0.2.1:1234"
	clientKey = "192.0.2.1/32" // its key by keyfunc.ClientIP
)

func TestNewConcurrencyRefusesBadConfig(t *testing.T) {
	_, err := middleware.NewConcurrency(nil, middleware.ConcurrencyOptions{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = middleware.NewConcurrency((*inflight.Memory)(nil), middleware.ConcurrencyOptions{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	// A zero Memory, not made by NewMemory: refused here, not a panic (or,
	// with FailOpen, every request served) at the first request.
	_, err = middleware.NewConcurrency(&inflight.Memory{}, middleware.ConcurrencyOptions{FailOpen: true})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = middleware.NewConcurrency(memSlots(t, 1), middleware.ConcurrencyOptions{Wait: -1})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = middleware.NewConcurrency(acquireOnly{memSlots(t, 1)}, middleware.ConcurrencyOptions{Wait: time.Second})
	require.ErrorIs(t, err, core.ErrInvalidConfig, "Wait with a limiter that cannot wait")
	require.Panics(t, func() { (*middleware.Concurrency)(nil).Handler(okHandler) })
}

// acquireOnly hides Wait.
type acquireOnly struct{ m *inflight.Memory }

func (a acquireOnly) Acquire(ctx context.Context, key string) (*inflight.Slot, error) {
	return a.m.Acquire(ctx, key)
}

// TestConcurrency400RequestsAgainst8: 400 parallel requests of one client
// against a limit of 8: exactly 8 run, the others get 429 with
// Retry-After, and every slot comes back.
func TestConcurrency400RequestsAgainst8(t *testing.T) {
	m := memSlots(t, 8)
	gate := make(chan struct{})
	entered := make(chan struct{}, 400)
	h := concurrency(t, m, middleware.ConcurrencyOptions{RetryAfter: 2 * time.Second},
		http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			entered <- struct{}{}
			<-gate
		}))
	codes := make(chan *httptest.ResponseRecorder, 400)
	var wg sync.WaitGroup
	for range 400 {
		wg.Go(func() { codes <- get(h, client) })
	}
	for range 8 {
		within.Recv(t, entered, "a request in the handler")
	}
	for range 392 {
		w := within.Recv(t, codes, "a refused request's response")
		require.Equal(t, http.StatusTooManyRequests, w.Code)
		require.Equal(t, "2", w.Header().Get("Retry-After"))
		require.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	}
	assert.Equal(t, 8, m.InFlight(clientKey))
	close(gate)
	within.Wait(t, &wg, "the 400 requests")
	for range 8 {
		require.Equal(t, http.StatusOK, within.Recv(t, codes, "a served request's response").Code)
	}
	assert.Equal(t, 0, m.InFlight(clientKey))
}

// TestConcurrencyWaitNeverExceeds: with Wait, all 400 are served, never
// more than 8 at once.
func TestConcurrencyWaitNeverExceeds(t *testing.T) {
	m := memSlots(t, 8)
	var cur, peak atomic.Int64
	h := concurrency(t, m, middleware.ConcurrencyOptions{Wait: time.Hour},
		http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			n := cur.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			for range 100 {
				runtime.Gosched() // stay inside while others run: an over-admission shows
			}
			cur.Add(-1)
		}))
	var wg sync.WaitGroup
	var ok atomic.Int64
	for range 400 {
		wg.Go(func() {
			if get(h, client).Code == http.StatusOK {
				ok.Add(1)
			}
		})
	}
	within.Wait(t, &wg, "the 400 requests")
	assert.EqualValues(t, 400, ok.Load())
	assert.LessOrEqual(t, peak.Load(), int64(8))
	assert.Equal(t, 0, m.InFlight(clientKey))
}

func TestConcurrencyReleasesOnPanic(t *testing.T) {
	m := memSlots(t, 1)
	boom := errors.New("boom")
	h := concurrency(t, m, middleware.ConcurrencyOptions{}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(boom)
	}))
	for range 3 { // a leaked slot would refuse the second request
		func() {
			defer func() { require.Equal(t, boom, recover(), "the panic goes on") }()
			get(h, client)
		}()
		require.Equal(t, 0, m.InFlight(clientKey))
	}
	// http.ErrAbortHandler too, the way net/http aborts a response.
	h = concurrency(t, m, middleware.ConcurrencyOptions{}, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	func() {
		defer func() { require.Equal(t, http.ErrAbortHandler, recover()) }()
		get(h, client)
	}()
	require.Equal(t, 0, m.InFlight(clientKey))
}

// served wraps h to tell when each request's handling has ended.
func served(h http.Handler, done chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { done <- struct{}{} }()
		h.ServeHTTP(w, r)
	})
}

// server starts an httptest server of h, closed at t's cleanup. Its
// client connections are closed first: Close waits for the requests
// being handled, and a handler waiting for its client to go (or in a
// line) would otherwise hang a test that failed before it let the client
// go.
func server(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// send sends a request to srv from a client that goes away when cancel
// is called; errc receives the client's error.
func send(srv *httptest.Server) (cancel context.CancelFunc, errc <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		ch <- err
	}()
	return cancel, ch
}

func TestConcurrencyReleasesOnClientDisconnect(t *testing.T) {
	m := memSlots(t, 1)
	entered := make(chan struct{}, 1)
	done := make(chan struct{}, 1)
	h := concurrency(t, m, middleware.ConcurrencyOptions{Key: func(*http.Request) (string, error) { return "k", nil }},
		http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			entered <- struct{}{}
			<-r.Context().Done() // a handler that stops when its client goes
		}))
	srv := server(t, served(h, done))

	cancel, errc := send(srv)
	within.Recv(t, entered, "the request in the handler")
	require.Equal(t, 1, m.InFlight("k"))
	cancel() // the client goes away
	require.Error(t, within.Recv(t, errc, "the client's error"))
	within.Recv(t, done, "the handler's end")
	require.Equal(t, 0, m.InFlight("k"), "the slot came back when the handler ended")
}

func TestConcurrencyWaiterDisconnectTakesNothing(t *testing.T) {
	m := memSlots(t, 1)
	done := make(chan struct{}, 1)
	h := concurrency(t, m, middleware.ConcurrencyOptions{Wait: time.Hour, Key: func(*http.Request) (string, error) { return "k", nil }},
		okHandler)
	srv := server(t, served(h, done))
	held, err := m.Acquire(context.Background(), "k")
	require.NoError(t, err)

	cancel, errc := send(srv)
	untilWaiting(t, m) // the request waits in the line
	cancel()
	require.Error(t, within.Recv(t, errc, "the client's error"))
	within.Recv(t, done, "the server's end of the request") // it let go of the waiting request at once
	assert.Equal(t, 0, waiting(m))
	assert.Equal(t, 1, m.InFlight("k"), "the waiter took nothing")
	require.NoError(t, held.Release(context.Background()))
	assert.Equal(t, 0, m.InFlight("k"))
}

// waiting returns the requests of key "k" waiting in m's line.
func waiting(m *inflight.Memory) int { return m.Waiting("k") }

// untilWaiting waits (bounded) until a request of key "k" has joined m's
// line: the verdict does not depend on how long it takes.
func untilWaiting(t *testing.T, m *inflight.Memory) {
	t.Helper()
	within.Until(t, "a request joining the line", func() bool { return waiting(m) > 0 })
	require.Equal(t, 1, waiting(m))
}

func TestConcurrencyBeginReleaseTwice(t *testing.T) {
	m := memSlots(t, 2)
	c, err := middleware.NewConcurrency(m, middleware.ConcurrencyOptions{})
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = client
	release, ok := c.Begin(httptest.NewRecorder(), r)
	require.True(t, ok)
	other, ok := c.Begin(httptest.NewRecorder(), r)
	require.True(t, ok)
	for range 10 {
		release()
	}
	require.Equal(t, 1, m.InFlight(clientKey), "releasing one request ten times gave back one slot")
	other()
}

// broken is a concurrency limiter whose store is down.
type broken struct{}

func (broken) Acquire(context.Context, string) (*inflight.Slot, error) { return nil, errDown }

func TestConcurrencyFaults(t *testing.T) {
	var reported error
	h := concurrency(t, broken{}, middleware.ConcurrencyOptions{FailRetryAfter: 3 * time.Second,
		OnError: func(_ *http.Request, err error) { reported = err }}, okHandler)
	w := get(h, client)
	require.Equal(t, http.StatusServiceUnavailable, w.Code)
	require.Equal(t, "3", w.Header().Get("Retry-After"))
	require.ErrorIs(t, reported, errDown)

	h = concurrency(t, broken{}, middleware.ConcurrencyOptions{FailOpen: true}, okHandler)
	require.Equal(t, http.StatusOK, get(h, client).Code)
}

// lateStore is a concurrency limiter whose store missed its own
// deadline: its error wraps context.DeadlineExceeded while the request's
// context lives (a Redis client's timeout).
type lateStore struct{}

var errLate = fmt.Errorf("store: no reply: %w", context.DeadlineExceeded)

func (lateStore) Acquire(context.Context, string) (*inflight.Slot, error) { return nil, errLate }

func (lateStore) Wait(context.Context, string) (*inflight.Slot, error) { return nil, errLate }

// TestConcurrencyStoreTimeoutIsAFault: a limiter's error wrapping
// context.DeadlineExceeded is a fault of the limiter (503 or FailOpen,
// and reported) unless the wait itself ran out: it used to be taken for
// the end of ConcurrencyOptions.Wait and answered 429, unreported, with
// FailOpen ignored.
func TestConcurrencyStoreTimeoutIsAFault(t *testing.T) {
	for _, wait := range []time.Duration{0, time.Hour} {
		var reported error
		h := concurrency(t, lateStore{}, middleware.ConcurrencyOptions{Wait: wait,
			OnError: func(_ *http.Request, err error) { reported = err }}, okHandler)
		require.Equal(t, http.StatusServiceUnavailable, get(h, client).Code, "wait %v", wait)
		require.ErrorIs(t, reported, errLate)
		h = concurrency(t, lateStore{}, middleware.ConcurrencyOptions{Wait: wait, FailOpen: true}, okHandler)
		require.Equal(t, http.StatusOK, get(h, client).Code, "wait %v", wait)
	}
}

// TestConcurrencyWaitRunsOut: a request that waited its whole
// ConcurrencyOptions.Wait without a slot is refused (429), on synctest's
// clock.
func TestConcurrencyWaitRunsOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := memSlots(t, 1)
		held, err := m.Acquire(context.Background(), clientKey)
		require.NoError(t, err)
		var reported error
		h := concurrency(t, m, middleware.ConcurrencyOptions{Wait: time.Second,
			OnError: func(_ *http.Request, err error) { reported = err }}, okHandler)
		start := time.Now()
		w := get(h, client)
		require.Equal(t, http.StatusTooManyRequests, w.Code)
		require.Equal(t, time.Second, time.Since(start), "refused when the wait ran out")
		require.NoError(t, reported, "not a fault")
		require.NoError(t, held.Release(context.Background()))
	})
}

func TestConcurrencyNoKeyAndDenied(t *testing.T) {
	h := concurrency(t, memSlots(t, 1), middleware.ConcurrencyOptions{}, okHandler)
	require.Equal(t, http.StatusForbidden, get(h, "not an address").Code)

	m := memSlots(t, 1)
	held, err := m.Acquire(context.Background(), clientKey)
	require.NoError(t, err)
	var denied int
	h = concurrency(t, m, middleware.ConcurrencyOptions{
		OnDenied: func(*http.Request) { denied++ },
		Denied: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Del("Retry-After") // a careless custom answer
			w.WriteHeader(http.StatusTooManyRequests)
		}}, okHandler)
	w := get(h, client)
	require.Equal(t, http.StatusTooManyRequests, w.Code)
	require.Equal(t, "1", w.Header().Get("Retry-After"), "every 429 carries Retry-After")
	require.Equal(t, 1, denied)
	require.NoError(t, held.Release(context.Background()))
}

func TestConcurrencyWaitQueueFull(t *testing.T) {
	m, err := inflight.NewMemory(1, inflight.MemoryOptions{MaxWaiters: 1})
	require.NoError(t, err)
	held, err := m.Acquire(context.Background(), "k")
	require.NoError(t, err)
	waiter := make(chan *inflight.Slot)
	go func() {
		s, _ := m.Wait(context.Background(), "k")
		waiter <- s
	}()
	untilWaiting(t, m)
	h := concurrency(t, m, middleware.ConcurrencyOptions{Wait: time.Hour, Key: func(*http.Request) (string, error) { return "k", nil }}, okHandler)
	w := get(h, client)
	require.Equal(t, http.StatusTooManyRequests, w.Code, "refused at once beyond the line's bound")
	require.NoError(t, held.Release(context.Background()))
	require.NoError(t, within.Recv(t, waiter, "the waiter's slot").Release(context.Background()))
}
