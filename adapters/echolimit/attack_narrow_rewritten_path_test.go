package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	echomw "github.com/labstack/echo/v4/middleware"
	"github.com/stretchr/testify/assert"
)

// It guards against a narrowing of the methods that was withdrawn: the
// adapters marked "-" the methods a router routes the path by to another
// route, and each review of the marks found a handler they let through
// uncharged; the marks are gone, and this request is charged again.
//
// TestAttackNarrowedByTheRewrittenPath: Limit in e.Pre before
// RemoveTrailingSlash; echo routes "/api/secret/" as "/api/secret", by
// GET and by POST to h (e.Any("/api/*", h)), which "POST /api/secret/"
// (1) then guards. The methods were narrowed by the path as it came,
// which echo routes by POST to e.POST("/api/:x/", …): POST was marked
// "-" and the GETs reached h past its route's limit (3 of 3; 1 of 3
// before the marks, a776f9a~1).
func TestAttackNarrowedByTheRewrittenPath(t *testing.T) {
	t.Parallel()
	m := selectOn(t, quota{"POST /api/secret/", 1})
	e := echo.New()
	e.Pre(echolimit.Limit(m))
	e.Pre(echomw.RemoveTrailingSlash())
	e.Any("/api/*", func(echo.Context) error { return nil })
	e.POST("/api/:x/", func(echo.Context) error { return nil })
	assert.Equal(t, []int{200, 429, 429}, thrice(e, http.MethodGet, "/api/secret/"))
}
