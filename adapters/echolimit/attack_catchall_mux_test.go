package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// echo serves "POST /api/lo%67in" (routed as it comes) and a PUT to
// "/api/login" with the catch-all of e.Any("/api/*", h), beside
// e.POST("/api/login", …). With the catch-all limited as "/api/" (ServeMux's
// syntax, 1 an hour) and "POST /api/login" at 1000, both were charged on
// the login route alone: 3 of 3 reached the catch-all's handler, before.
// Now they are charged on both routes: 1.
func TestAttackCatchAllInServeMuxSyntaxKeepsItsLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ method, path string }{
		{http.MethodPut, "/api/login"},
		{http.MethodPost, "/api/lo%67in"},
	} {
		m := selectOn(t, quota{"/api/", 1}, quota{"POST /api/login", 1000})
		hits := 0
		e := echo.New()
		e.Use(echolimit.Limit(m))
		e.Any("/api/*", func(echo.Context) error { hits++; return nil })
		e.POST("/api/login", ok)
		codes := thrice(e, c.method, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, c.method+" "+c.path)
		assert.Equal(t, 1, hits, c.method+" "+c.path)
	}
}
