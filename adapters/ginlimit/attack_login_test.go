package ginlimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"
)

// TestAttackLoginQueryCredentials: a login route of every method whose
// handler reads c.Query is never reached with credentials in the URL
// (before the fix GET and HEAD passed through uncounted: 20 guesses of 20
// reached the handler, against 2 free failures).
func TestAttackLoginQueryCredentials(t *testing.T) {
	gin.SetMode(gin.TestMode)
	g, _ := guard(t, false)
	e := gin.New()
	reached := 0
	e.Any("/login", ginlimit.Login(g), func(c *gin.Context) {
		reached++
		if c.Query("username") == "alice" && c.Query("password") == "secret" {
			c.Status(http.StatusOK)
			return
		}
		c.AbortWithStatus(http.StatusUnauthorized)
	})
	for i := range 20 {
		method := []string{http.MethodGet, http.MethodHead}[i%2]
		r := httptest.NewRequest(method, "/login?USERNAME=x&username=alice&password=guess", nil)
		r.RemoteAddr = "198.51.100.7:1"
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		require.Equal(t, http.StatusBadRequest, w.Code)
	}
	require.Zero(t, reached)
	r := httptest.NewRequest(http.MethodGet, "/login?next=%2F", nil)
	e.ServeHTTP(httptest.NewRecorder(), r)
	require.Equal(t, 1, reached)
}

// TestAttackLoginRedirectBack: a gin login answering a wrong password with
// c.Redirect back to the login page is judged a failure (before the fix
// every such guess was refunded: 20 of 20 reached the check).
func TestAttackLoginRedirectBack(t *testing.T) {
	gin.SetMode(gin.TestMode)
	g, _ := guard(t, false)
	e := gin.New()
	reached := 0
	e.POST("/login", ginlimit.Login(g), func(c *gin.Context) {
		reached++
		if right(c) {
			c.Redirect(http.StatusSeeOther, "/home")
			return
		}
		c.Redirect(http.StatusSeeOther, "/login?error=1")
	})
	for range 20 {
		post(e, "alice", "guess")
	}
	require.LessOrEqual(t, reached, 3) // Free: 2, then the lock
	w := post(e, "bob", "secret")
	require.Equal(t, http.StatusSeeOther, w.Code)
}
