package middleware

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/internal/within"

	"github.com/stretchr/testify/require"
)

// TestAttackCloseNotifyLoopCostsOneRegistration: a streaming handler
// calls CloseNotify in every turn of its loop, as net/http's writers
// allow (theirs returns one channel, made once). Under a writer that
// cannot notify, each call made a channel and registered a function on
// the request's context, kept until the request ended: a request streaming
// 10,000 chunks held 10,000 of each (4 allocations and 358 bytes a
// call). Every call now returns the one channel, registered once, which
// receives once the request's context ends.
func TestAttackCloseNotifyLoopCostsOneRegistration(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got, h := newHeldWriter(struct{ http.ResponseWriter }{httptest.NewRecorder()})
	h.r = httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	//lint:ignore SA1019 the deprecated interface is what such handlers assert
	cn := got.(http.CloseNotifier)
	first := cn.CloseNotify()
	same := true
	allocs := testing.AllocsPerRun(1000, func() {
		same = same && cn.CloseNotify() == first
	})
	require.True(t, same, "one channel for every call")
	require.Zero(t, allocs, "allocations per CloseNotify call after the first")
	cancel() // the client goes away
	within.Recv(t, first, "the close notification")
}
