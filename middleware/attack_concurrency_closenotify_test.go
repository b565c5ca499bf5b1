package middleware_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

// TestConcurrencyWriterKeepsCloseNotifier: the writer a Concurrency
// handler gets (see heldWriter) is still an http.CloseNotifier where the
// server's is. Before, it was not: a handler that type-asserts it (the
// deprecated way of noticing a client that hung up: w.(http.CloseNotifier))
// panicked, and one that checks lost the notice and worked on for nobody,
// holding its slot.
func TestConcurrencyWriterKeepsCloseNotifier(t *testing.T) {
	m := memSlots(t, 1)
	got := make(chan bool, 1)
	h := concurrency(t, m, middleware.ConcurrencyOptions{Key: constKey}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		//lint:ignore SA1019 the deprecated interface is what such handlers assert
		cn, ok := w.(http.CloseNotifier)
		got <- ok && cn.CloseNotify() != nil
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	require.NoError(t, res.Body.Close())
	require.True(t, <-got, "the server's writer notifies of a close: so does the handler's")
	require.Equal(t, 0, m.InFlight("k"))
}
