package middleware_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackRglob38cDotSegmentParam: gin v1.12, echo v4.16 and chi v5.5
// route a path as it comes, a dot segment or an empty one a parameter's
// value like any other: "/users/../x" is served by "/users/:id/x" (id
// ".."), "/users//x" by chi's and gin's "/users/{id}/x" (id ""),
// "/users/." by "/users/{id}". With the limiter around the router (no
// template), ServeMux cleaned those paths into "/x", "/users/x", "/users/"
// and charged the default or a looser route: 3 of 3 past a route limit
// of 1 an hour. Now 1 of 3, charged on the route too.
func TestAttackRglob38cDotSegmentParam(t *testing.T) {
	for _, c := range []struct {
		routes []quota
		method string
		path   string
	}{
		{[]quota{{"GET /users/{id}/x", 1}}, "GET", "/users/../x"},
		{[]quota{{"GET /users/:id/x", 1}}, "GET", "/users/./x"},
		{[]quota{{"GET /users/{id}/x", 1}}, "HEAD", "/users//x"},
		{[]quota{{"GET /users/{id}", 1}}, "GET", "/users/.."},
		{[]quota{{"GET /users/{id}", 1}}, "GET", "/users/."},
		{[]quota{{"GET /users/:id", 1}, {"GET /{$}", 1000}}, "GET", "/users/.."},
		{[]quota{{"POST /login/{provider}/callback", 1}, {"POST /callback", 1000}}, "POST", "/login/../callback"},
		{[]quota{{"GET /a/:b/:c", 1}}, "GET", "/a/../x/y"},
	} {
		m := quotaRoutesDefault(t, 1000, c.routes...)
		var codes []int
		for range 3 {
			codes = append(codes, serveHost(m.Handler(okHandler), c.method, c.path, "example.com"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s under %v", c.method, c.path, c.routes)
	}
}
