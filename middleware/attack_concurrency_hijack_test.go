package middleware_test

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

// hijackable is a ResponseWriter whose connection can be taken over: one
// end of a pipe.
type hijackable struct {
	*httptest.ResponseRecorder
	conn, peer net.Conn
}

func newHijackable(t *testing.T) *hijackable {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return &hijackable{ResponseRecorder: httptest.NewRecorder(), conn: a, peer: b}
}

func (h *hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return h.conn, bufio.NewReadWriter(bufio.NewReader(h.conn), bufio.NewWriter(h.conn)), nil
}

// TestAttackHijackedConnectionHoldsItsSlot: a handler that takes the
// connection over (a WebSocket upgrade) and returns, serving it from
// goroutines of its own (as gorilla/websocket's chat example does), still
// has its request in flight. Before, the slot came back when the handler
// returned: at a limit of 1, a client opened as many WebSockets as it
// wished. Now a connection taken over holds its slot until it is closed.
func TestAttackHijackedConnectionHoldsItsSlot(t *testing.T) {
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
			m := memSlots(t, 1)
			conns := make(chan net.Conn, 2)
			h := concurrency(t, m, middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				c, _, err := hijack(w)
				require.NoError(t, err)
				conns <- c // served elsewhere: the handler returns
			}))
			first := newHijackable(t)
			h.ServeHTTP(first, httptest.NewRequest(http.MethodGet, "/ws", nil))
			c := <-conns
			require.Equal(t, 1, m.InFlight("k"), "the connection taken over is still in flight")

			second := newHijackable(t)
			h.ServeHTTP(second, httptest.NewRequest(http.MethodGet, "/ws", nil))
			require.Equal(t, http.StatusTooManyRequests, second.Code, "a second WebSocket of the key is refused")

			require.NoError(t, c.Close())
			require.Equal(t, 0, m.InFlight("k"), "closing the connection gives the slot back")
			_ = c.Close() // a second Close releases nothing more
			require.Equal(t, 0, m.InFlight("k"))

			third := newHijackable(t)
			h.ServeHTTP(third, httptest.NewRequest(http.MethodGet, "/ws", nil))
			require.Equal(t, 1, m.InFlight("k"), "the slot was free again, once")
			c = <-conns
			require.Same(t, third.conn, c.(interface{ NetConn() net.Conn }).NetConn())
			require.NoError(t, c.Close())
			require.Equal(t, 0, m.InFlight("k"))
		})
	}
}

// TestConcurrencyHijackClosedInHandler: a handler that serves the
// connection it took over and closes it before returning holds one slot,
// given back once.
func TestConcurrencyHijackClosedInHandler(t *testing.T) {
	m := memSlots(t, 2)
	h := concurrency(t, m, middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		require.NoError(t, err)
		require.Equal(t, 1, m.InFlight("k"))
		require.NoError(t, c.Close())
		require.Equal(t, 0, m.InFlight("k"))
	}))
	h.ServeHTTP(newHijackable(t), httptest.NewRequest(http.MethodGet, "/ws", nil))
	require.Equal(t, 0, m.InFlight("k"))
}

// TestConcurrencyHijackThenPanic: a handler that panics after taking the
// connection over releases its slot, as any panic does.
func TestConcurrencyHijackThenPanic(t *testing.T) {
	m := memSlots(t, 1)
	h := concurrency(t, m, middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _, err := http.NewResponseController(w).Hijack()
		require.NoError(t, err)
		panic(http.ErrAbortHandler)
	}))
	require.Panics(t, func() { h.ServeHTTP(newHijackable(t), httptest.NewRequest(http.MethodGet, "/ws", nil)) })
	require.Equal(t, 0, m.InFlight("k"))
}

// TestConcurrencyWriterKeepsFlusher: the writer the handler gets still
// flushes (server-sent events) and unwraps.
func TestConcurrencyWriterKeepsFlusher(t *testing.T) {
	m := memSlots(t, 1)
	h := concurrency(t, m, middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		require.True(t, ok)
		_, _ = w.Write([]byte("data: 1\n\n"))
		f.Flush()
		require.NoError(t, http.NewResponseController(w).Flush())
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/events", nil))
	require.True(t, rec.Flushed)
	require.Equal(t, 0, m.InFlight("k"))
}

// constKey keys every request "k".
func constKey(*http.Request) (string, error) { return "k", nil }
