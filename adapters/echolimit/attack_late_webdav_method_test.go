package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// TestAttackLateMethodOutsideNetHTTPIsLimited: e.Any("/login", login),
// added after a first request had read the routes (POST's alone at
// "/login"), serves PROPFIND and REPORT too, which echo's
// Any covers. The table was read again for net/http's methods alone: a
// PROPFIND, sent first, reached login unlimited (3 of 3) where "POST
// /login" (1 an hour) guards it. Now 1 of 3.
func TestAttackLateMethodOutsideNetHTTPIsLimited(t *testing.T) {
	t.Parallel()
	for _, pre := range []bool{false, true} {
		m := selectOn(t, quota{"POST /login", 1})
		e := echo.New()
		if pre {
			e.Pre(echolimit.Limit(m))
		} else {
			e.Use(echolimit.Limit(m))
		}
		hits := 0
		login := func(echo.Context) error { hits++; return nil }
		e.POST("/login", login)
		e.GET("/page", func(echo.Context) error { return nil })
		assert.Equal(t, http.StatusOK, from(e, http.MethodGet, "/page", "192.0.2.9:1"))
		e.Any("/login", login)
		assert.Equal(t, []int{200, 429, 429}, thrice(e, echo.PROPFIND, "/login"), "pre %v", pre)
		assert.Equal(t, 1, hits, "pre %v", pre)
	}
}
