package middleware_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countFailures is a middleware counting only failed requests (status 400
// and above), 3 an hour, and the errors it reports.
func countFailures(t *testing.T) (*middleware.Middleware, func() []error) {
	t.Helper()
	var mu sync.Mutex
	var errs []error
	m, err := middleware.New(limiter(t, newClock(), core.FixedWindow{Quota: 3, Window: time.Hour}), middleware.Options{
		CountIf: func(s int) bool { return s >= 400 },
		OnError: func(_ *http.Request, err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() },
	})
	require.NoError(t, err)
	return m, func() []error { mu.Lock(); defer mu.Unlock(); return append([]error(nil), errs...) }
}

// A handler that returns without writing (a router that writes the
// handler's error after the middleware returned, as echo does under
// WrapMiddleware) or writes only an informational status is no success:
// its requests stay counted, and each is reported. Before, every one was
// taken for a 200 and refunded: a limit of 3 failures let any number
// through.
func TestAttackUnwrittenResponseStaysCounted(t *testing.T) {
	for name, write := range map[string]func(http.ResponseWriter){
		"nothing":          func(http.ResponseWriter) {},
		"informational":    func(w http.ResponseWriter) { w.WriteHeader(http.StatusEarlyHints) },
		"headers only set": func(w http.ResponseWriter) { w.Header().Set("X-Status", "401") },
	} {
		t.Run(name, func(t *testing.T) {
			m, errs := countFailures(t)
			h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { write(w) }))
			for i := range 3 {
				assert.NotEqual(t, http.StatusTooManyRequests, serve(h, "POST", "/login", "192.0.2.1:1", nil), i)
			}
			assert.Equal(t, http.StatusTooManyRequests, serve(h, "POST", "/login", "192.0.2.1:1", nil))
			require.Len(t, errs(), 3)
			for _, err := range errs() {
				assert.ErrorIs(t, err, middleware.ErrNoResponse)
			}
		})
	}
	t.Run("written successes are still refunded", func(t *testing.T) {
		m, errs := countFailures(t)
		h := m.Handler(okHandler)
		for range 10 {
			assert.Equal(t, http.StatusOK, serve(h, "POST", "/login", "192.0.2.1:1", nil))
		}
		assert.Empty(t, errs())
	})
}

// A handler that takes the connection over (a WebSocket upgrade, whatever
// it says on it) tells no status: the request stays counted, without an
// error, whether it hijacks through http.ResponseController or by a type
// assertion, which the middleware's writer supports where the server does.
func TestAttackHijackedConnectionStaysCounted(t *testing.T) {
	for name, hijack := range map[string]func(http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error){
		"ResponseController": func(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) {
			return http.NewResponseController(w).Hijack()
		},
		"type assertion": func(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) {
			hj, ok := w.(http.Hijacker)
			if !ok {
				return nil, nil, errors.New("not a Hijacker")
			}
			return hj.Hijack()
		},
	} {
		t.Run(name, func(t *testing.T) {
			m, errs := countFailures(t)
			srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				c, rw, err := hijack(w)
				if !assert.NoError(t, err) {
					return
				}
				_, _ = rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
				_ = rw.Flush()
				_ = c.Close()
			})))
			defer srv.Close()
			codes := make([]int, 4)
			for i := range codes {
				res, err := srv.Client().Post(srv.URL+"/login", "text/plain", nil)
				require.NoError(t, err)
				_ = res.Body.Close()
				codes[i] = res.StatusCode
			}
			assert.Equal(t, []int{200, 200, 200, 429}, codes)
			assert.Empty(t, errs())
		})
	}
}

// admitting is a custom Limiter that admits with a Result of its own
// making and whose refunds fail (its store is down).
type admitting struct{ res core.Result }

func (a admitting) AllowN(context.Context, string, int64) (core.Result, error) { return a.res, nil }

func (admitting) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, errDown
}

// Options.OnError is given the request with every error, those reported
// after the decision included: a handler that wrote nothing
// (ErrNoResponse), a refund that failed for CountIf, for a delay beyond
// MaxDelay or for a client gone during its delay. Before, these four were
// reported with a nil *http.Request, so a logging hook reading r.URL.Path
// panicked while serving (a client could trigger it with CountIf and a
// handler that writes nothing); now each case reports its error once with
// the request's path.
func TestAttackOnErrorIsGivenTheRequest(t *testing.T) {
	silent := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	delayed := admitting{core.Result{Allowed: true, Delay: time.Hour}}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for name, c := range map[string]struct {
		lim  middleware.Limiter
		opts middleware.Options
		next http.Handler
		ctx  context.Context
		want error
	}{
		"no response":        {limiter(t, newClock(), core.FixedWindow{Quota: 3, Window: time.Hour}), middleware.Options{CountIf: func(s int) bool { return s >= 400 }}, silent, context.Background(), middleware.ErrNoResponse},
		"CountIf refund":     {admitting{core.Result{Allowed: true}}, middleware.Options{CountIf: func(s int) bool { return s >= 400 }}, okHandler, context.Background(), errDown},
		"MaxDelay give-back": {delayed, middleware.Options{MaxDelay: time.Second}, okHandler, context.Background(), errDown},
		"client gone":        {delayed, middleware.Options{}, okHandler, gone, errDown},
	} {
		t.Run(name, func(t *testing.T) {
			var paths []string
			var errs []error
			c.opts.OnError = func(r *http.Request, err error) {
				paths = append(paths, r.URL.Path) // what a logging hook does
				errs = append(errs, err)
			}
			m, err := middleware.New(c.lim, c.opts)
			require.NoError(t, err)
			r := httptest.NewRequestWithContext(c.ctx, http.MethodPost, "/login", nil)
			r.RemoteAddr = "192.0.2.1:1"
			require.NotPanics(t, func() { m.Handler(c.next).ServeHTTP(httptest.NewRecorder(), r) })
			assert.Equal(t, []string{"/login"}, paths)
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], c.want)
		})
	}
}

// unwrapOnly is a writer of a middleware mounted before the limiter (a
// logger) that offers the server's writer through Unwrap only, as
// http.ResponseController expects, and flushes nothing itself.
type unwrapOnly struct{ http.ResponseWriter }

func (u unwrapOnly) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// opaque is such a writer without Unwrap: nothing under it can be flushed.
type opaque struct{ http.ResponseWriter }

// Under CountIf, http.ResponseController's Flush reaches the server's
// writer through writers that only unwrap, and fails where nothing can be
// flushed; a status is recorded only once a flush sent it. Before, the
// middleware's writer flushed only a writer that was a Flusher itself: the
// flush was lost (a stream stalled) yet reported done, and taken for a 200
// sent, so a 401 written after it reached the client and was refunded:
// a limit of 3 failures let 5 through, and any number.
func TestAttackFlushRecordsOnlyWhatItSends(t *testing.T) {
	t.Run("through Unwrap", func(t *testing.T) {
		m, _ := countFailures(t)
		h := unwrapped(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			assert.NoError(t, http.NewResponseController(w).Flush())
		})), func(w http.ResponseWriter) http.ResponseWriter { return unwrapOnly{w} })
		r := httptest.NewRequest("GET", "/events", nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.True(t, w.Flushed, "the flush reached the server's writer")
	})
	t.Run("nothing to flush", func(t *testing.T) {
		m, errs := countFailures(t)
		h := unwrapped(m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			assert.ErrorIs(t, http.NewResponseController(w).Flush(), http.ErrNotSupported)
			w.(http.Flusher).Flush()
			w.WriteHeader(http.StatusUnauthorized)
		})), func(w http.ResponseWriter) http.ResponseWriter { return opaque{w} })
		codes := make([]int, 5)
		for i := range codes {
			codes[i] = serve(h, "POST", "/login", "192.0.2.1:1", nil)
		}
		assert.Equal(t, []int{401, 401, 401, 429, 429}, codes)
		assert.Empty(t, errs())
	})
}

// unwrapped serves h behind a middleware giving it wrap's writer.
func unwrapped(h http.Handler, wrap func(http.ResponseWriter) http.ResponseWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(wrap(w), r) })
}
