package echolimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

// TestAttackLoginQueryCredentials: a login route of every method whose
// handler reads c.FormValue is never reached with credentials in the URL
// (before the fix GET and HEAD passed through uncounted: 20 guesses of 20
// reached check, against 2 free failures).
func TestAttackLoginQueryCredentials(t *testing.T) {
	g, _ := guard(t, false)
	e := echo.New()
	reached := 0
	e.Any("/login", func(c echo.Context) error { reached++; return check(c) }, echolimit.Login(g))
	for i := range 20 {
		method := []string{http.MethodGet, http.MethodHead}[i%2]
		r := httptest.NewRequest(method, "/login?username=alice&password=guess", nil)
		r.RemoteAddr = addr(i)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		require.Equal(t, http.StatusBadRequest, w.Code)
	}
	require.Zero(t, reached)
	// The login page itself is served.
	r := httptest.NewRequest(http.MethodGet, "/login?next=%2F", nil)
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	require.Equal(t, 1, reached)
}

// TestAttackLoginRedirectBack: an echo login answering a wrong password
// with c.Redirect back to the login page is judged a failure (before the
// fix every such guess was refunded: 20 of 20 reached the check).
func TestAttackLoginRedirectBack(t *testing.T) {
	g, _ := guard(t, false)
	e := echo.New()
	reached := 0
	e.POST("/login", func(c echo.Context) error {
		reached++
		if c.FormValue("username") == "alice" && c.FormValue("password") == "secret" {
			return c.Redirect(http.StatusSeeOther, "/home")
		}
		return c.Redirect(http.StatusSeeOther, "/login?error=1")
	}, echolimit.Login(g))
	for i := range 20 {
		post(e, "alice", "guess", addr(i))
	}
	require.LessOrEqual(t, reached, 3) // Free: 2, then the lock
}
