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

// TestConcurrencyHijackedConnectionKeepsCloseWrite: the connection a
// Concurrency handler takes over still half-closes where the server's
// does (TCP, TLS). httputil.ReverseProxy, proxying a WebSocket or any
// upgrade, half-closes the client's side when the backend's ends and goes
// on copying the other way; without CloseWrite it closed the whole
// connection at once, cutting what the client was still sending.
func TestConcurrencyHijackedConnectionKeepsCloseWrite(t *testing.T) {
	m := memSlots(t, 1)
	got := make(chan string, 1)
	canHalfClose := make(chan bool, 1)
	closed := make(chan struct{})
	h := concurrency(t, m, middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, rw, err := http.NewResponseController(w).Hijack()
		require.NoError(t, err)
		defer func() {
			_ = c.Close() // (gives the slot back before it returns)
			close(closed)
		}()
		cw, ok := c.(interface{ CloseWrite() error })
		canHalfClose <- ok
		if !ok {
			return
		}
		require.NoError(t, cw.CloseWrite()) // the client reads EOF...
		b, _ := io.ReadAll(rw)              // ...and may still send
		got <- string(b)
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	require.True(t, <-canHalfClose, "the connection taken over half-closes")
	rest, err := io.ReadAll(bufio.NewReader(c))
	require.NoError(t, err)
	require.Empty(t, rest, "half-closed by the handler")
	_, err = io.WriteString(c, "still sending")
	require.NoError(t, err)
	require.NoError(t, c.(*net.TCPConn).CloseWrite())
	require.Equal(t, "still sending", <-got)
	<-closed // the handler's deferred Close runs after it sent
	require.Equal(t, 0, m.InFlight("k"))
}
