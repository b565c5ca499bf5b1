package login_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// app is a login handler with one account, alice, that counts the
// credential checks it makes.
type app struct{ checks atomic.Int64 }

func (a *app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	a.checks.Add(1)
	if r.PostForm.Get("username") == "alice" && r.PostForm.Get("password") == "secret" {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}

func newGuard(t testing.TB, clk *coretest.Clock, opts login.Options) *login.Guard {
	t.Helper()
	opts.Clock = clk
	g, err := login.New(opts)
	require.NoError(t, err)
	return g
}

func formRequest(user, pass, addr string) *http.Request {
	body := url.Values{"username": {user}, "password": {pass}}.Encode()
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = addr
	return r
}

// serve runs r through h and returns the recorded response.
func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// dump returns the full response: status line, headers and body.
func dump(t testing.TB, w *httptest.ResponseRecorder) string {
	t.Helper()
	b, err := httputil.DumpResponse(w.Result(), true)
	require.NoError(t, err)
	return string(b)
}
