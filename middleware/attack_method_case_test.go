package middleware_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ServeMux matches a pattern's method as written: "get /users/1" is not
// served by "GET /users/{id}" but by a pattern without a method ("/", a
// proxy or an SPA's catch-all). Routes matches methods up to case, so that
// a handler serving every method is guarded by its route whatever the
// case, and counted such a request on "GET /users/{id}" (1000/hour) alone:
// 3 of 3 reached the "/" handler limited to 1 (found by an adversarial
// review). A request whose method is not written canonically is now
// charged, all or nothing, on the route of its canonical method and on
// that of the pattern its method as written reaches (the default when no
// route holds it): 1 of 3.
func TestAttackMethodCaseLooserThanServedRoute(t *testing.T) {
	for _, c := range []struct{ route, method, path string }{
		{"/", "get", "/users/1"},
		{"/", "Get", "/users/1"},
		{"/", "post", "/users/1"},
		{"/users/", "get", "/users/1"},
	} {
		codes, hits := muxRequests(t, c.route, c.route, "GET /users/{id}", c.method, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s under %s", c.method, c.path, c.route)
		assert.Equal(t, 1, hits, "%s %s under %s", c.method, c.path, c.route)
	}
}

// Without a route holding the pattern a lower-case method reaches, the
// default limits it, with the canonical method's route.
func TestAttackMethodCaseLooserThanTheDefault(t *testing.T) {
	h, codes, hits := underStrictDefault(t, "GET /users/{id}", "/", []string{"GET /users/{id}"}, "get", "/users/1")
	assert.Equal(t, []int{200, 429, 429}, codes)
	assert.Equal(t, 1, hits)
	// The canonical method alone: its route, not the default.
	assert.Equal(t, 200, serve(h, "GET", "/users/1", "192.0.2.1:1", nil))
}

// A handler serving every method at its path ("/users/{id}" without a
// method) is guarded by a route of one method whatever the method's case,
// and charged once: the pattern the method as written reaches is that
// route's own.
func TestMethodCaseOfAnEveryMethodHandlerChargedOnce(t *testing.T) {
	m := quotaRoutes(t, false, quota{"GET /users/{id}", 2})
	app := http.NewServeMux()
	app.HandleFunc("/users/{id}", func(http.ResponseWriter, *http.Request) {})
	h := m.Handler(app)
	ip := "192.0.2.1:1"
	assert.Equal(t, 200, serve(h, "get", "/users/1", ip, nil))
	assert.Equal(t, 200, serve(h, "GET", "/users/1", ip, nil))
	assert.Equal(t, 429, serve(h, "gEt", "/users/1", ip, nil))
}
