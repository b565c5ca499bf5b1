package middleware_test

import (
	"bufio"
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
