package echolimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// TestAttackPerIPPreMountPreflightReachingHandler: PerIP mounted with
// e.Pre runs before echo routes, so it did not know that a CORS preflight
// reached a handler serving OPTIONS (Any's, an OPTIONS route) and counted
// it in a preflight bucket of its own, a second budget to the handler: a
// login handler of Any limited to 2 an hour ran 4 times, 2 POSTs and 2
// preflights (credentials in their query). PerIP now finds the route echo
// will serve a preflight with, as Limit does under e.Pre and as chilimit's
// PerIP does before chi routes: the handler runs 2 times. A preflight
// echo answers itself (no OPTIONS route at its path) keeps its own bucket.
func TestAttackPerIPPreMountPreflightReachingHandler(t *testing.T) {
	hits := map[string]int{}
	e := echo.New()
	e.Pre(echolimit.MustPerIP("2/hour"))
	handler := func(c echo.Context) error { hits[c.Path()]++; return c.NoContent(http.StatusOK) }
	e.Any("/login", handler)
	e.OPTIONS("/opt", handler)
	e.POST("/post", handler)
	do := func(method, path, remote string, preflight bool) int {
		r := httptest.NewRequest(method, path, nil)
		r.RemoteAddr = remote
		if preflight {
			r.Header.Set("Origin", "https://evil.example")
			r.Header.Set("Access-Control-Request-Method", "POST")
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		return w.Code
	}
	for i, path := range []string{"/login", "/opt"} {
		remote := []string{"192.0.2.1:1", "192.0.2.2:1"}[i]
		method := http.MethodPost
		if path == "/opt" {
			method = http.MethodOptions
		}
		assert.Equal(t, http.StatusOK, do(method, path, remote, false))
		assert.Equal(t, http.StatusOK, do(method, path, remote, false))
		for range 3 {
			assert.Equal(t, http.StatusTooManyRequests, do(http.MethodOptions, path+"?user=a&password=b", remote, true), path)
		}
		assert.Equal(t, 2, hits[path], "%s: the handler ran past the client's limit of 2", path)
	}
	// No OPTIONS route at /post: echo answers the preflight itself, in a
	// bucket of the preflights' own, never the handler.
	remote := "192.0.2.3:1"
	assert.Equal(t, http.StatusOK, do(http.MethodPost, "/post", remote, false))
	assert.Equal(t, http.StatusOK, do(http.MethodPost, "/post", remote, false))
	assert.NotEqual(t, http.StatusTooManyRequests, do(http.MethodOptions, "/post", remote, true))
	assert.Equal(t, 2, hits["/post"])
}
