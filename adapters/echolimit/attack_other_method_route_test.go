package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// A GET or PUT to "/api/login", which echo serves with e.Any("/api/*", h)
// beside e.POST("/api/login", login), was charged on "POST /api/login" (1
// an hour) as well as the catch-all's "/api/" (1000): the catch-all's
// handler is reached by every method, and POST's route at the path was
// taken to guard it. echo routes a POST there to login, not to h: every
// GET was charged on the login limit, and after one GET the client's
// logins were refused (1 of 3 GETs, 0 of 3 POSTs). Now the methods echo
// routes the path by to the catch-all alone count: 3 GETs, 3 PUTs, then
// 1 POST of 3, with Use and with Pre.
func TestAttackOtherMethodsRouteUnderACatchAllNotCharged(t *testing.T) {
	t.Parallel()
	for _, pre := range []bool{false, true} {
		m := selectOn(t, quota{"/api/", 1000}, quota{"POST /api/login", 1})
		e := echo.New()
		if pre {
			e.Pre(echolimit.Limit(m))
		} else {
			e.Use(echolimit.Limit(m))
		}
		e.Any("/api/*", ok)
		e.POST("/api/login", ok)
		assert.Equal(t, []int{200, 200, 200}, thrice(e, http.MethodGet, "/api/login"), "pre %v", pre)
		assert.Equal(t, []int{200, 200, 200}, thrice(e, http.MethodPut, "/api/login"), "pre %v", pre)
		assert.Equal(t, []int{200, 429, 429}, thrice(e, http.MethodPost, "/api/login"), "pre %v", pre)
	}
}
