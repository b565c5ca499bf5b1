package middleware_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackRglob38cTailCutEscapes: echo v4.16 serves each of these paths
// by the route ending in a parameter (its last parameter takes the rest
// of the path: "/users//1/2" with id "/1/2", "/users/./1/2" with id
// "./1/2", "/users/me/x" with id "me/x" beside the route "/users/me",
// which it leaves to backtrack). Cut to the route's segment count, the
// path was "/users/", "/users/.", "/users/..", "/users/me": an empty
// segment, a dot segment ServeMux cleans away, or a literal route's path,
// none matched by "/users/{p1}". Around echo they went to the default or
// the looser route: 3 of 3 past a route limit of 1 an hour.
func TestAttackRglob38cTailCutEscapes(t *testing.T) {
	for _, c := range []struct {
		routes []quota
		path   string
	}{
		{[]quota{{"GET /users/:id", 1}}, "/users//1/2"},
		{[]quota{{"GET /users/:id", 1}}, "/users/./1/2"},
		{[]quota{{"GET /users/:id", 1}}, "/users/../users/1/2"},
		{[]quota{{"GET /users/:id", 1}}, "/users/%2E/1/2"},
		{[]quota{{"GET /users/:id", 1}, {"GET /users/me", 1000}}, "/users/me/x"},
		{[]quota{{"GET /users/:id", 1}, {"GET /users/me", 1000}}, "/users/me/"},
		{[]quota{{"GET /a/b/:x", 1}}, "/a/b//c"},
		{[]quota{{"GET /users/:id", 1}}, "/users/."},
		{[]quota{{"GET /users/:id", 1}}, "/users/.."},
		{[]quota{{"GET /users/:id", 1}}, "/users//"},
		{[]quota{{"GET /a/b/:x", 1}}, "/a/b/.."},
	} {
		m := quotaRoutesDefault(t, 1000, c.routes...)
		var codes []int
		for range 3 {
			codes = append(codes, serveHost(m.Handler(okHandler), "GET", c.path, "example.com"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s under %v", c.path, c.routes)
	}
}

// TestAttackRglob38cTailCleanedGuard: a path ServeMux cleans into a route's
// ("/users/me/x/.." into "/users/me") was taken for a path a pattern
// matches itself, and not cut for the route ending in a parameter, which
// echo serves it by (id "me/x/.."): charged on the looser "GET /users/me"
// alone, 3 of 3 past "GET /users/:id" at 1 an hour. Now 1 of 3.
func TestAttackRglob38cTailCleanedGuard(t *testing.T) {
	for _, path := range []string{"/users/me/x/..", "/users/me/./", "/users/me//"} {
		m := quotaRoutesDefault(t, 1000, quota{"GET /users/:id", 1}, quota{"GET /users/me", 1000})
		var codes []int
		for range 3 {
			codes = append(codes, serveHost(m.Handler(okHandler), "GET", path, "example.com"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, path)
	}
}
