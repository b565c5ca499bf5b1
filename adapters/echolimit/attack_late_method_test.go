package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// A route added after the first request at a path the route table had
// read (e.PUT("/login", login) beside e.POST("/login", login), a GET
// "/login" asked first) was not seen: the PUT reached the login handler
// unlimited, 3 of 3, where "POST /login" (1 an hour) guards it, with Use
// and with Pre. Now the table is read again for a method of net/http's
// that echo routes at a path it does not list: 1 of 3.
func TestAttackMethodAddedAfterTheFirstRequestIsLimited(t *testing.T) {
	t.Parallel()
	for _, pre := range []bool{false, true} {
		m := selectOn(t, quota{"POST /login", 1})
		e := echo.New()
		if pre {
			e.Pre(echolimit.Limit(m))
		} else {
			e.Use(echolimit.Limit(m))
		}
		e.GET("/login", func(echo.Context) error { return nil })
		assert.Equal(t, http.StatusOK, from(e, http.MethodGet, "/login", "192.0.2.1:1"))
		hits := 0
		login := func(echo.Context) error { hits++; return nil }
		e.POST("/login", login)
		e.PUT("/login", login)
		assert.Equal(t, []int{200, 429, 429}, thrice(e, http.MethodPut, "/login"), "pre %v", pre)
		assert.Equal(t, 1, hits, "pre %v", pre)
	}
}
