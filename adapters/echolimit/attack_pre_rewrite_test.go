package echolimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	echomw "github.com/labstack/echo/v4/middleware"
	"github.com/stretchr/testify/assert"
)

// TestAttackPerIPPreMountPreflightRewrittenAfter: PerIP mounted with e.Pre
// before a Pre middleware that rewrites the path (RemoveTrailingSlash)
// found no route for a preflight to "/login/" and gave it a bucket of the
// preflights' own, though echo then routed it, as "/login", to the Any
// handler PerIP limits to 2: the handler ran 4 times for 2, a custom
// RouteNotFound handler or not. A preflight echo's router routes to no
// route it lists, before the later Pre middleware ran, is now counted in
// the client's bucket: 2 times.
func TestAttackPerIPPreMountPreflightRewrittenAfter(t *testing.T) {
	for _, notFound := range []bool{false, true} {
		testPerIPPreMountPreflightRewrittenAfter(t, notFound)
	}
}

func testPerIPPreMountPreflightRewrittenAfter(t *testing.T, notFound bool) {
	hits := 0
	e := echo.New()
	e.Pre(echolimit.MustPerIP("2/hour"), echomw.RemoveTrailingSlash())
	e.Any("/login", func(c echo.Context) error { hits++; return c.NoContent(http.StatusOK) })
	if notFound {
		e.RouteNotFound("/*", func(c echo.Context) error { return c.NoContent(http.StatusNotFound) })
	}
	do := func(method, path string, preflight bool) int {
		r := httptest.NewRequest(method, path, nil)
		r.RemoteAddr = "192.0.2.1:1"
		if preflight {
			r.Header.Set("Origin", "https://evil.example")
			r.Header.Set("Access-Control-Request-Method", "POST")
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		return w.Code
	}
	assert.Equal(t, http.StatusOK, do(http.MethodPost, "/login", false))
	assert.Equal(t, http.StatusOK, do(http.MethodPost, "/login", false))
	for range 3 {
		assert.Equal(t, http.StatusTooManyRequests, do(http.MethodOptions, "/login/?user=a&password=b", true))
	}
	assert.Equal(t, 2, hits, "RouteNotFound %v: the handler ran past the client's limit of 2", notFound)
}
