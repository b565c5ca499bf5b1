package middleware_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackRglob38cDecodedAndHost: gin v1.12 routes the decoded path
// (UseRawPath is off by default): "/users/a%2Fb/x" is "/users/a/b/x" to
// it, served by "/users/:id/:y/x", and "/users/a%2F../x" is
// "/users/a/../x", served by "/users/:id/:y/x" with y "..". ServeMux
// reads the escaped path, one segment "a%2Fb": around gin, the default was
// charged. And a host-specific route read as it comes missed a host in
// another case, with a trailing dot or a port ("EXAMPLE.com.:8080"),
// which routers ignoring the host serve all the same. Each was 3 of 3 past
// a route limit of 1 an hour; now 1 of 3.
func TestAttackRglob38cDecodedAndHost(t *testing.T) {
	for _, c := range []struct{ route, path, host string }{
		{"GET /users/:id/:y/x", "/users/a%2Fb/x", "example.com"},
		{"GET /users/{id}/{y}/x", "/users/a%2F..%2Fx", "example.com"},
		{"GET /users/:id/:y/x", "/users/a%2F../x", "example.com"},
		{"GET example.com/users/:id/x", "/users/../x", "EXAMPLE.com.:8080"},
		{"GET example.com/users/:id", "/users/1/2", "EXAMPLE.com."},
	} {
		m := quotaRoutesDefault(t, 1000, quota{c.route, 1})
		var codes []int
		for range 3 {
			codes = append(codes, serveHost(m.Handler(okHandler), "GET", c.path, c.host))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s under %q", c.host, c.path, c.route)
	}
}
