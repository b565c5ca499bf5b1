package login_test

import (
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rootApp is a post/redirect/get login whose form is the site's root:
// the right password is redirected to "/" (now showing the account), a
// wrong one to "/?error=1".
func rootApp(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("username") == "alice" && r.PostFormValue("password") == "secret" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/?error=1", http.StatusSeeOther)
}

// TestSuccessBackToLoginPageReported: a login whose success lands on its
// own page ("/" posted to "/", or a login mounted with
// http.StripPrefix("/login", ...) that the handler sees as "/") has every
// success counted as a failure, whatever SuccessRedirect says: the guard
// never takes a redirect back to the login page for a success. Each of
// alice's logins was silently counted (6 admitted, then 429; a network's
// 100 logins an hour locked it out) and nothing told the operator why: 0
// errors reported. Each is now reported to OnError with
// login.ErrRedirectBackToLogin when SuccessRedirect accepted it.
func TestSuccessBackToLoginPageReported(t *testing.T) {
	judge := func(u *url.URL) bool { return u.Path == "/" && u.RawQuery == "" }
	for name, mount := range map[string]func(*http.ServeMux, http.Handler) string{
		"root": func(m *http.ServeMux, h http.Handler) string { m.Handle("POST /{$}", h); return "/" },
		"StripPrefix": func(m *http.ServeMux, h http.Handler) string {
			m.Handle("/login/", http.StripPrefix("/login", h))
			return "/login/"
		},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var errs []error
			g := newGuard(t, coretest.NewClock(t0), login.Options{
				SuccessRedirect: judge,
				OnError:         func(_ *http.Request, err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() },
			})
			mux := http.NewServeMux()
			path := mount(mux, g.Handler(http.HandlerFunc(rootApp)))
			codes := map[int]int{}
			for range 10 {
				r := formRequest("alice", "secret", addr(1))
				r.URL.Path, r.RequestURI = path, path
				codes[serve(mux, r).Code]++
			}
			// Still a failure each: the guard cannot tell it from "/" with a
			// flash message in the session.
			assert.Equal(t, map[int]int{http.StatusSeeOther: 6, http.StatusTooManyRequests: 4}, codes)
			require.Len(t, errs, 6, "successes counted as failures without a word")
			for _, err := range errs {
				require.ErrorIs(t, err, login.ErrRedirectBackToLogin)
			}
			// A failure back to the login page, which the judge refuses,
			// is not reported.
			errs = nil
			r := formRequest("bob", "guess", addr(2))
			r.URL.Path, r.RequestURI = path, path
			require.Equal(t, http.StatusSeeOther, serve(mux, r).Code)
			assert.Empty(t, errs)
		})
	}
}
