package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// It guards against a narrowing of the methods that was withdrawn: the
// adapters marked "-" the methods a router routes the path by to another
// route, and each review of the marks found a handler they let through
// uncharged; the marks are gone, and this request is charged again.
//
// login serves e.Any("/api/*", login) and e.POST("/api/login", login),
// "POST /api/login" at 1 an hour. A GET or PUT to "/api/login", which
// echo routes to the catch-all, reaches login as surely as a POST does,
// yet it was not charged on "POST /api/login": echo routes POST there to
// another route, and that method was marked as guarding another handler,
// though the handler is login: 3 of 3 GETs and 3 of 3 PUTs ran. A route
// of the handler the request reaches now guards it: 1 request of the 9,
// with Use and with Pre.
func TestAttackSameHandlerAtAnotherMethodsRouteIsCharged(t *testing.T) {
	t.Parallel()
	login := func(c echo.Context) error { return c.NoContent(http.StatusOK) }
	for _, pre := range []bool{false, true} {
		m := selectOn(t, quota{"POST /api/login", 1})
		e := echo.New()
		if pre {
			e.Pre(echolimit.Limit(m))
		} else {
			e.Use(echolimit.Limit(m))
		}
		e.Any("/api/*", login)
		e.POST("/api/login", login)
		assert.Equal(t, []int{200, 429, 429}, thrice(e, http.MethodGet, "/api/login?user=a&pass=b"), "pre %v", pre)
		assert.Equal(t, []int{429, 429, 429}, thrice(e, http.MethodPut, "/api/login"), "pre %v", pre)
		assert.Equal(t, []int{429, 429, 429}, thrice(e, http.MethodPost, "/api/login"), "pre %v", pre)
	}
}
