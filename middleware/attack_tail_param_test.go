package middleware_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackTailParamTakesTheRestAroundEcho: echo's parameter ending a
// route takes the rest of a path no route continues: "/users/:id" serves
// "/users/1/2", "POST /login/:provider" serves "/login/google/x". With the
// limiter around echo (no template), those went to the default: 3 of 3
// past a route limit of 1 an hour. Now 1 of 3, charged on the route and
// the default.
func TestAttackTailParamTakesTheRestAroundEcho(t *testing.T) {
	for _, c := range []struct{ route, method, path string }{
		{"GET /users/:id", "GET", "/users/1/2"},
		{"GET /users/:id", "HEAD", "/users/1/2/3"},
		{"GET /users/:id", "GET", "/users/1/"},
		{"POST /login/:provider", "POST", "/login/google/x"},
		{"POST api.example.com/login/:provider", "POST", "/login/google/%2Fx/y"},
	} {
		m := quotaRoutesDefault(t, 1000, quota{c.route, 1})
		var codes []int
		for range 3 {
			codes = append(codes, serveHost(m.Handler(okHandler), c.method, c.path, "api.example.com"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s under %q", c.method, c.path, c.route)
	}
}

// TestTailParamOnlyWhereNoRouteMatches: a deeper path a route of its own
// matches, a route in ServeMux's syntax ("{id}", one segment to every
// router), a path with a template, and a shorter path are not charged on
// the route ending in a parameter.
func TestTailParamOnlyWhereNoRouteMatches(t *testing.T) {
	for _, c := range []struct {
		routes         []quota
		path, template string
	}{
		{[]quota{{"GET /users/:id", 1}, {"GET /users/:id/posts", 1000}}, "/users/1/posts", ""},
		{[]quota{{"GET /users/{id}", 1}}, "/users/1/2", ""},
		{[]quota{{"GET /users/:id", 1}}, "/users/1/2", "/users/:id/*"},
		{[]quota{{"GET /users/:id", 1}}, "/users", ""},
	} {
		m := quotaRoutesDefault(t, 1000, c.routes...)
		for range 3 {
			assert.Equal(t, 200, begin(m, "GET", c.path, c.template, "192.0.2.1:1"), "%s under %v, template %q", c.path, c.routes, c.template)
		}
	}
}
