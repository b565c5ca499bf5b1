package middleware_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A method not written canonically is charged on what its canonical form
// reaches and on what its method as written reaches; each of those may be
// two routes (a variant's and the served pattern's). Routes.choose kept
// two of the four: "get /x/", served by ServeMux with the "/" handler
// (which routes further: "/x/" is "/x" to a router stripping slashes),
// was charged on "/" and "GET /x/" but not on "/x" (1/hour), the route
// its path names under "/": 3 of 3 reached the handler, where "GET /x"
// (and "post /x/" by a method without a route at "/x/") is held to 1. It
// is now charged on every route either spelling reaches: 1 of 3.
func TestAttackMethodCaseDropsTheRawVariantsRoute(t *testing.T) {
	m := quotaRoutes(t, false, quota{"/", 1000}, quota{"GET /x/", 1000}, quota{"/x", 1})
	hits := 0
	app := http.NewServeMux()
	app.HandleFunc("/", func(http.ResponseWriter, *http.Request) { hits++ })
	app.HandleFunc("GET /x/", func(http.ResponseWriter, *http.Request) {})
	h := m.Handler(app)
	codes := []int{}
	for range 3 {
		codes = append(codes, serve(h, "get", "/x/", "192.0.2.1:1", nil))
	}
	assert.Equal(t, []int{200, 429, 429}, codes)
	assert.Equal(t, 1, hits)
	assert.Equal(t, 429, serve(h, "POST", "/x", "192.0.2.1:1", nil), "the /x route's own bucket")
}

// The canonical form's two routes are kept too: "get /admin/PUBLIC" was
// charged on "/" (what ServeMux serves it with) and "GET /admin/public",
// not on "GET /admin/" (1/hour), which "GET /admin/PUBLIC" is charged on
// and which a router matching methods without case (the reason Routes
// does) serves it with: behind such a router, 3 of 3 reached the admin
// handler, where the canonical spelling reaches it once.
func TestAttackMethodCaseDropsTheCanonicalServedRoute(t *testing.T) {
	for _, method := range []string{"GET", "get", "gEt"} {
		m := quotaRoutes(t, false, quota{"/", 1000}, quota{"GET /admin/", 1}, quota{"GET /admin/public", 1000})
		hits := 0
		// A router matching methods without case, serving "/admin/" with
		// a file server (it reads the path as it comes).
		h := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
		codes := []int{}
		for range 3 {
			codes = append(codes, serve(h, method, "/admin/PUBLIC", "192.0.2.1:1", nil))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, method)
		assert.Equal(t, 1, hits, method)
	}
}
