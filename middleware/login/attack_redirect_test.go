package login_test

import (
	"bytes"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/require"
)

// prgApp is a form login in the post/redirect/get style: a wrong password
// is answered with a redirect back to the login page (to show an error),
// a right one with a redirect to the application.
type prgApp struct {
	checks  atomic.Int64
	failure string // the Location of a failure
}

func (a *prgApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	a.checks.Add(1)
	if r.PostForm.Get("username") == "alice" && r.PostForm.Get("password") == "secret" {
		http.Redirect(w, r, "/home", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, a.failure, http.StatusSeeOther)
}

// TestAttackRedirectBackIsFailure: with the default Options.Succeeded, a
// failure answered by a redirect back to the login page counted as a
// success: every guess was refunded (30 of 30 reached the password check
// against 5 free failures) and, with Devices, each wrong guess earned the
// attacker a valid device cookie for alice.
func TestAttackRedirectBackIsFailure(t *testing.T) {
	for _, loc := range []string{"/login?error=1", "login?error=bad+password", "/login/", "http://example.com/login#e", "/LOGIN", "/x/../login", "./login", "../login?e"} {
		t.Run(loc, func(t *testing.T) {
			g := newGuard(t, coretest.NewClock(t0), login.Options{Devices: &login.DeviceOptions{Secret: bytes.Repeat([]byte{7}, 32)}})
			app := &prgApp{failure: loc}
			h := g.Handler(app)
			for i := range 30 {
				w := serve(h, formRequest("alice", "guess", "198.51.100."+string(rune('1'+i%9))+":1"))
				require.Empty(t, w.Header().Values("Set-Cookie"), "a device cookie for a wrong password")
			}
			require.LessOrEqual(t, app.checks.Load(), int64(6), "guesses that reached the password check")
		})
	}
}

// TestAttackRedirectElsewhereIsSuccess: the right password, redirected
// into the application that Options.SuccessRedirect names, is still a
// success (refunded, device cookie).
func TestAttackRedirectElsewhereIsSuccess(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{
		Devices:         &login.DeviceOptions{Secret: bytes.Repeat([]byte{7}, 32)},
		SuccessRedirect: func(u *url.URL) bool { return u.Path == "/home" },
	})
	app := &prgApp{failure: "/login?error=1"}
	h := g.Handler(app)
	for range 20 {
		w := serve(h, formRequest("alice", "secret", "198.51.100.1:1"))
		require.Equal(t, http.StatusSeeOther, w.Code)
		require.Len(t, w.Header().Values("Set-Cookie"), 1)
	}
	require.Equal(t, int64(20), app.checks.Load())
}
