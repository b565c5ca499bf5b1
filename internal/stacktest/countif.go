package stacktest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CheckCountIfNeverGuesses checks that an adapter counting only failures
// (CountIf: status 400 and above, 3 an hour) refunds only the successes it
// saw written. mount returns the router's application serving POST /login
// with m, then h (as the router hands requests to a net/http handler). A
// handler that writes nothing, or takes the connection over, leaves the
// request counted: the fourth is refused; the first is reported as
// middleware.ErrNoResponse, the second is not an error. A handler writing
// a 200 is refunded every time.
func CheckCountIfNeverGuesses(t *testing.T, mount func(m *middleware.Middleware, h http.HandlerFunc) http.Handler) {
	t.Helper()
	build := func(errs *[]error, mu *sync.Mutex) *middleware.Middleware {
		return single(t, coretest.NewClock(t0), core.FixedWindow{Quota: 3, Window: time.Hour}, middleware.Options{
			CountIf: func(s int) bool { return s >= 400 },
			OnError: func(_ *http.Request, err error) { mu.Lock(); *errs = append(*errs, err); mu.Unlock() },
		})
	}
	for name, c := range map[string]struct {
		h       http.HandlerFunc
		want    []int
		noResp  bool
		network bool
	}{
		"nothing written": {h: func(http.ResponseWriter, *http.Request) {}, want: []int{200, 200, 200, 429}, noResp: true},
		"hijacked": {h: func(w http.ResponseWriter, _ *http.Request) {
			conn, rw, err := http.NewResponseController(w).Hijack()
			if !assert.NoError(t, err) {
				return
			}
			_, _ = rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			_ = rw.Flush()
			_ = conn.Close()
		}, want: []int{200, 200, 200, 429}, network: true},
		"written 200": {h: func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("welcome")) }, want: []int{200, 200, 200, 200, 200}},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var errs []error
			h := mount(build(&errs, &mu), c.h)
			got := make([]int, len(c.want))
			for i := range got {
				got[i] = post(t, h, c.network)
			}
			assert.Equal(t, c.want, got)
			mu.Lock()
			defer mu.Unlock()
			if !c.noResp {
				assert.Empty(t, errs)
				return
			}
			assert.Len(t, errs, 3)
			for _, err := range errs {
				assert.ErrorIs(t, err, middleware.ErrNoResponse)
			}
		})
	}
}

// post sends POST /login to h, through a real server when network is set
// (a connection can be hijacked there only), and returns the status.
func post(t *testing.T, h http.Handler, network bool) int {
	t.Helper()
	if !network {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/login", nil))
		return w.Code
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := srv.Client().Post(srv.URL+"/login", "text/plain", nil)
	require.NoError(t, err)
	_ = res.Body.Close()
	return res.StatusCode
}
