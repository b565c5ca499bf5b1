package login_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orgApp is a multi-tenant post/redirect/get login served under
// "/{tenant}/login": a right password is redirected to the tenant's home,
// a wrong one back to the page it was posted to, r.URL.Path, with an error.
type orgApp struct{ checks atomic.Int64 }

func (a *orgApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	a.checks.Add(1)
	if r.PostForm.Get("username") == "alice" && r.PostForm.Get("password") == "secret" {
		http.Redirect(w, r, "home", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, r.URL.Path+"?error=1", http.StatusSeeOther)
}

// TestAttackRedirectPathSpellsAnotherLocation: a login whose path holds a
// wildcard ("/{tenant}/login") answers a wrong password with a redirect
// back to itself, http.Redirect(w, r, r.URL.Path+"?error=1", 303), the
// decoded path written into the Location as it is. A tenant "home%23"
// makes that path "/home#/login", and the Location "/home#/login?error=1":
// "/home" and a fragment, which the guard (and the browser) read as a
// redirect home, not back to the login page ("%2F" and a leading "//" move
// it further: "//evil.example/home#..." is another host's home). A
// SuccessRedirect telling the tenants' homes,
// strings.HasSuffix(u.Path, "/home") && u.RawQuery == "", took each for a
// success: every wrong guess at alice was refunded and earned a device
// cookie (30 of 30 reached the password check, against 6). A redirect
// answering a login request whose path does not read back as itself from
// a Location is now a failure.
func TestAttackRedirectPathSpellsAnotherLocation(t *testing.T) {
	for _, tenant := range []string{"home%23", "x%2Fhome%23", "%2Fevil.example%2Fhome%23", "home%3F%23"} {
		t.Run(tenant, func(t *testing.T) {
			g := newGuard(t, coretest.NewClock(t0), login.Options{
				Devices: &login.DeviceOptions{Secret: bytes.Repeat([]byte{7}, 32)},
				SuccessRedirect: func(u *url.URL) bool {
					return strings.HasSuffix(u.Path, "/home") && u.RawQuery == ""
				},
			})
			a := &orgApp{}
			mux := http.NewServeMux()
			mux.Handle("POST /{tenant}/login", g.Handler(a))
			cookies := 0
			for i := range 30 {
				r := formRequest("alice", "guess", addr(i))
				target := "/" + tenant + "/login"
				u, err := url.ParseRequestURI(target)
				require.NoError(t, err)
				r.URL, r.RequestURI = u, target
				cookies += len(serve(mux, r).Header().Values("Set-Cookie"))
			}
			assert.LessOrEqual(t, a.checks.Load(), int64(6), "wrong guesses that reached the password check")
			assert.Zero(t, cookies, "device cookies earned by wrong guesses")
		})
	}
	// The right password at an ordinary tenant is still a success.
	g := newGuard(t, coretest.NewClock(t0), login.Options{
		SuccessRedirect: func(u *url.URL) bool { return strings.HasSuffix(u.Path, "/home") && u.RawQuery == "" },
	})
	a := &orgApp{}
	mux := http.NewServeMux()
	mux.Handle("POST /{tenant}/login", g.Handler(a))
	for range 20 {
		r := formRequest("alice", "secret", addr(1))
		r.URL.Path, r.RequestURI = "/acme/login", "/acme/login"
		w := serve(mux, r)
		require.Equal(t, http.StatusSeeOther, w.Code)
		require.Equal(t, "/acme/home", w.Header().Get("Location"))
	}
	assert.Equal(t, int64(20), a.checks.Load())
}
