package middleware_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

// methods lists the optional interfaces of a ResponseWriter that handlers
// type-assert.
func methods(w http.ResponseWriter) []string {
	var m []string
	if _, ok := w.(http.Flusher); ok {
		m = append(m, "Flusher")
	}
	if _, ok := w.(http.Hijacker); ok {
		m = append(m, "Hijacker")
	}
	if _, ok := w.(http.Pusher); ok {
		m = append(m, "Pusher")
	}
	//lint:ignore SA1019 the deprecated interface is what such handlers assert
	if _, ok := w.(http.CloseNotifier); ok {
		m = append(m, "CloseNotifier")
	}
	if _, ok := w.(io.ReaderFrom); ok {
		m = append(m, "ReaderFrom")
	}
	return m
}

// exact is what the handler's writer offers over a writer offering m:
// Flusher and Hijacker where m has them, the others always.
func exact(m []string) []string {
	var e []string
	for _, x := range m {
		if x == "Flusher" || x == "Hijacker" {
			e = append(e, x)
		}
	}
	return append(e, "Pusher", "CloseNotifier", "ReaderFrom")
}

// bareWriter is a ResponseWriter with no optional interface; the types
// below add one each.
type bareWriter struct{ h http.Header }

func (b *bareWriter) Header() http.Header         { return b.h }
func (b *bareWriter) Write(p []byte) (int, error) { return len(p), nil }
func (b *bareWriter) WriteHeader(int)             {}

type flushOnly struct{ bareWriter }

func (*flushOnly) Flush() {}

type hijackOnly struct{ bareWriter }

func (*hijackOnly) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, http.ErrNotSupported
}

type pushOnly struct{ bareWriter }

func (*pushOnly) Push(string, *http.PushOptions) error { return nil }

type closeNotifyOnly struct{ bareWriter }

func (*closeNotifyOnly) CloseNotify() <-chan bool { return make(chan bool) }

type readFromOnly struct{ bareWriter }

func (*readFromOnly) ReadFrom(r io.Reader) (int64, error) { return io.Copy(io.Discard, r) }

// seenMethods serves one request with h wrapped by a Concurrency and
// returns the optional interfaces of the writer the server gave and of the
// one the handler got.
func seenMethods(t *testing.T, serve func(http.Handler)) (server, handler []string) {
	t.Helper()
	inner := concurrency(t, memSlots(t, 1), middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		handler = methods(w)
	}))
	serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		server = methods(w)
		inner.ServeHTTP(w, r)
	}))
	return server, handler
}

// TestAttackConcurrencyWriterClaimsOnlyWhatItWraps: the writer a
// Concurrency handler gets is a Flusher and a Hijacker exactly where the
// writer under it is (a Hijacker also where it unwraps to one), and a
// Pusher, a CloseNotifier and a ReaderFrom always, whose contracts hold
// over any writer. Before, it was a Flusher and a Hijacker whatever that
// writer was: a handler checking http.Flusher streamed into a writer that
// cannot flush; and its CloseNotify, under a writer that cannot notify,
// never fired: a handler waiting on it worked on for a client gone,
// holding its slot (TestHeldWriterTypes: it fires once the request's
// context ends).
func TestAttackConcurrencyWriterClaimsOnlyWhatItWraps(t *testing.T) {
	for name, w := range map[string]http.ResponseWriter{
		"none":          &bareWriter{h: http.Header{}},
		"Flusher":       &flushOnly{bareWriter{h: http.Header{}}},
		"Hijacker":      &hijackOnly{bareWriter{h: http.Header{}}},
		"Pusher":        &pushOnly{bareWriter{h: http.Header{}}},
		"CloseNotifier": &closeNotifyOnly{bareWriter{h: http.Header{}}},
		"ReaderFrom":    &readFromOnly{bareWriter{h: http.Header{}}},
	} {
		t.Run(name, func(t *testing.T) {
			server, handler := seenMethods(t, func(h http.Handler) {
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			})
			require.Equal(t, exact(server), handler)
		})
	}
	for name, tls := range map[string]bool{"HTTP/1.1": false, "HTTP/2": true} {
		t.Run(name, func(t *testing.T) {
			server, handler := seenMethods(t, func(h http.Handler) {
				srv := httptest.NewUnstartedServer(h)
				defer srv.Close()
				if tls {
					srv.EnableHTTP2 = true
					srv.StartTLS()
				} else {
					srv.Start()
				}
				res, err := srv.Client().Get(srv.URL)
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, res.Body)
				require.NoError(t, res.Body.Close())
				require.Equal(t, tls, res.ProtoMajor == 2)
			})
			require.NotEmpty(t, server)
			require.Equal(t, exact(server), handler)
		})
	}
}

// unwrapperOnly is a writer of some middleware that offers nothing of its
// own but unwraps to the writer under it.
type unwrapperOnly struct {
	bareWriter
	under http.ResponseWriter
}

func (u *unwrapperOnly) Unwrap() http.ResponseWriter { return u.under }

// TestConcurrencyHijackThroughAnUnwrapperHoldsItsSlot: a writer that
// hijacks only through http.ResponseController (a middleware's writer
// that unwraps to the server's) still gives a connection that holds the
// request's slot: the handler's writer is a Hijacker wherever a
// connection can be taken over under it.
func TestConcurrencyHijackThroughAnUnwrapperHoldsItsSlot(t *testing.T) {
	m := memSlots(t, 1)
	conns := make(chan net.Conn, 1)
	h := concurrency(t, m, middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		require.NoError(t, err)
		conns <- c
	}))
	h.ServeHTTP(&unwrapperOnly{bareWriter: bareWriter{h: http.Header{}}, under: newHijackable(t)}, httptest.NewRequest(http.MethodGet, "/ws", nil))
	c := <-conns
	require.Equal(t, 1, m.InFlight("k"), "the connection taken over holds the slot")
	require.NoError(t, c.Close())
	require.Equal(t, 0, m.InFlight("k"))
}
