package login_test

import (
	"bytes"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRedirectElsewhereOnFailure: a login answering a wrong
// password with a redirect to a page of its own ("/login/failed",
// "/login-error", "/?error=bad", "/signin-problem") was judged a success by
// the default Options.Succeeded, which took every redirect leading away
// from the login path for one: each wrong guess was refunded (30 of 30
// reached the password check against 5 free failures) and, with Devices,
// earned the attacker a device cookie for alice. Without
// Options.SuccessRedirect no redirect is a success now.
func TestAttackRedirectElsewhereOnFailure(t *testing.T) {
	for _, loc := range []string{"/login/failed", "/login-error", "/?error=bad", "/signin-problem", "https://example.com/oops"} {
		t.Run(loc, func(t *testing.T) {
			var mu sync.Mutex
			var errs []error
			g := newGuard(t, coretest.NewClock(t0), login.Options{
				Devices: &login.DeviceOptions{Secret: bytes.Repeat([]byte{7}, 32)},
				OnError: func(_ *http.Request, err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() },
			})
			app := &prgApp{failure: loc}
			h := g.Handler(app)
			for i := range 30 {
				w := serve(h, formRequest("alice", "guess", addr(i)))
				require.Empty(t, w.Header().Values("Set-Cookie"), "a device cookie for a wrong password")
			}
			assert.LessOrEqual(t, app.checks.Load(), int64(6), "guesses that reached the password check")
			require.NotEmpty(t, errs)
			assert.ErrorIs(t, errs[0], login.ErrRedirectNotJudged)
		})
	}
}

// TestRedirectSuccessOnlyWhenJudged: a redirect is a success only when
// Options.SuccessRedirect says so of its Location (resolved against the
// login request's URL), and never one back to the login page, whatever it
// says.
func TestRedirectSuccessOnlyWhenJudged(t *testing.T) {
	var seen []string
	home := func(u *url.URL) bool {
		seen = append(seen, u.String())
		return u.Path == "/home" && u.RawQuery == ""
	}
	g := newGuard(t, coretest.NewClock(t0), login.Options{
		Devices:         &login.DeviceOptions{Secret: bytes.Repeat([]byte{7}, 32)},
		SuccessRedirect: home,
	})
	for range 20 { // the right password, redirected home: refunded, a cookie each
		w := serve(g.Handler(&prgApp{failure: "/?error=bad"}), formRequest("alice", "secret", addr(1)))
		require.Equal(t, http.StatusSeeOther, w.Code)
		require.Len(t, w.Header().Values("Set-Cookie"), 1)
	}
	assert.Equal(t, "/home", seen[0])
	// A judge that takes everything for a success still sees no success
	// in a redirect back to the login page.
	g = newGuard(t, coretest.NewClock(t0), login.Options{SuccessRedirect: func(*url.URL) bool { return true }})
	app := &prgApp{failure: "/login?error=1"}
	for i := range 30 {
		serve(g.Handler(app), formRequest("alice", "guess", addr(i)))
	}
	assert.LessOrEqual(t, app.checks.Load(), int64(6))
	// Without a judge, the right password redirected home is a failure:
	// the guard never guesses a success, and says so; a redirect back to
	// the login page is a failure it need not report.
	reported := 0
	g = newGuard(t, coretest.NewClock(t0), login.Options{OnError: func(*http.Request, error) { reported++ }})
	codes := map[int]int{}
	for range 10 {
		codes[serve(g.Handler(&prgApp{failure: "/x"}), formRequest("alice", "secret", addr(1))).Code]++
	}
	assert.Equal(t, map[int]int{http.StatusSeeOther: 6, http.StatusTooManyRequests: 4}, codes)
	assert.Equal(t, 6, reported)
	serve(g.Handler(&prgApp{failure: "/login?error=1"}), formRequest("bob", "guess", addr(2)))
	assert.Equal(t, 6, reported)
}
