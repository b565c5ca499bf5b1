package login_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/require"
)

// carelessApp checks credentials with r.FormValue whatever the method, as
// many login handlers mounted with http.HandleFunc("/login", ...) do: it
// reads them from the query as readily as from the body.
type carelessApp struct{ checks atomic.Int64 }

func (a *carelessApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.checks.Add(1)
	if r.FormValue("username") == "alice" && r.FormValue("password") == "secret" {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackQueryCredentials: credentials sent in the URL query of any
// method reach a handler that reads them with r.FormValue; the guard, which
// counts only what the body names, must not let such a request through
// uncounted. Before the fix GET, HEAD and OPTIONS passed through unguarded:
// 30 guesses at alice's password reached the handler against an account
// limit of 5.
func TestAttackQueryCredentials(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPost, http.MethodDelete} {
		t.Run(method, func(t *testing.T) {
			g := newGuard(t, coretest.NewClock(t0), login.Options{})
			app := &carelessApp{}
			h := g.Handler(app)
			for i := range 30 {
				q := url.Values{"username": {"alice"}, "password": {"guess" + string(rune('a'+i%26))}}
				var r *http.Request
				if method == http.MethodPost || method == http.MethodDelete {
					// A body naming another user, the query naming alice.
					r = httptest.NewRequest(method, "/login?"+q.Encode(), strings.NewReader("password=x&username=mallory"))
					r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				} else {
					r = httptest.NewRequest(method, "/login?"+q.Encode(), nil)
				}
				r.RemoteAddr = "198.51.100.7:1234"
				serve(h, r)
			}
			// A username in the query is refused whatever the method: the
			// guard cannot tell which of the query's and the body's names a
			// handler checks.
			require.Zero(t, app.checks.Load(), "guesses that reached the handler")
		})
	}
}

// TestAttackQueryCredentialsLoginPage: a safe request without credentials
// in its query (the login page) still passes through uncounted.
func TestAttackQueryCredentialsLoginPage(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{})
	app := &carelessApp{}
	h := g.Handler(app)
	for range 30 {
		r := httptest.NewRequest(http.MethodGet, "/login?next=%2Fhome", nil)
		r.RemoteAddr = "198.51.100.7:1234"
		require.Equal(t, http.StatusUnauthorized, serve(h, r).Code) // the app's own answer
	}
	require.Equal(t, int64(30), app.checks.Load())
}

// jsonApp checks credentials from a JSON body whatever the method.
type jsonApp struct{ checks atomic.Int64 }

func (a *jsonApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var c struct{ Username, Password string }
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
		http.Error(w, "login page", http.StatusOK)
		return
	}
	a.checks.Add(1)
	if c.Username == "alice" && c.Password == "secret" {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackSafeMethodBody: credentials in the body of a GET, HEAD or
// OPTIONS reach a handler that decodes the body whatever the method; the
// guard passed those methods through uncounted (30 guesses of 30 reached
// the check before the fix). A safe request with a body is refused.
func TestAttackSafeMethodBody(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodOptions} {
		for _, chunked := range []bool{false, true} {
			g := newGuard(t, coretest.NewClock(t0), login.Options{})
			app := &jsonApp{}
			h := g.Handler(app)
			for range 30 {
				r := httptest.NewRequest(method, "/login", strings.NewReader(`{"username":"alice","password":"guess"}`))
				r.Header.Set("Content-Type", "application/json")
				if chunked {
					r.ContentLength = -1
				}
				r.RemoteAddr = "198.51.100.7:1234"
				require.Equal(t, http.StatusBadRequest, serve(h, r).Code)
			}
			require.Zero(t, app.checks.Load(), "%s chunked=%v: guesses that reached the handler", method, chunked)
		}
	}
}

// TestAttackSafeMethodOverHTTP2: the login page, fetched over HTTP/2 (whose
// requests without a body still carry a Body that is not http.NoBody), is
// served; a GET with a body is refused there too.
func TestAttackSafeMethodOverHTTP2(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{})
	app := &jsonApp{}
	srv := httptest.NewUnstartedServer(g.Handler(app))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	c := srv.Client()
	resp, err := c.Get(srv.URL + "/login")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, 2, resp.ProtoMajor)
	require.Equal(t, http.StatusOK, resp.StatusCode) // the app's "login page"
	r, err := http.NewRequest(http.MethodGet, srv.URL+"/login", strings.NewReader(`{"username":"alice","password":"guess"}`))
	require.NoError(t, err)
	resp, err = c.Do(r)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Zero(t, app.checks.Load())
}
