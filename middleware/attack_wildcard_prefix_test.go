package middleware_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A subtree whose pattern holds a wildcard before its literal segments
// ("GET /users/{id}/files/{p...}", "/users/{id}/admin/") keeps its requests
// as tightly as "/admin/": "/users/x/files/%2E%2E/%2E%2E/y" is served by
// the files handler (ServeMux matches the escaped path and does not
// resolve encoded dots), and its decoded path cleaned ("/users/y") names
// "GET /users/{id}", a route the handler does not serve. Before, the served
// prefix stopped at the first wildcard ("/users/"), the variant was kept,
// and 3 of 3 requests were counted on the looser route and reached the
// strictly limited handler.
func TestAttackEncodedDotsDoNotLeaveAWildcardSubtree(t *testing.T) {
	for _, c := range []struct{ app, other, method, path string }{
		{"GET /users/{id}/files/{p...}", "GET /users/{id}", "GET", "/users/x/files/%2E%2E/%2E%2E/y"},
		{"/users/{id}/admin/", "/users/{id}", "GET", "/users/x/admin/%2E%2E/%2E%2E/y"},
		{"/users/{id}/admin/", "/users/{id}/public", "POST", "/users/x/admin/%2e%2e/%2e%2e/x/public/"},
		{"/u/{id}/{kind}/admin/", "/u/{id}/{kind}", "GET", "/u/%61/b/admin/%2E%2E/%2E%2E/c"},
		// ServeMux does not clean a CONNECT's path: its dot segments, and
		// an empty segment matched by the wildcard, reach the handler too.
		{"/users/{id}/admin/", "/users/{id}", "CONNECT", "/users/x/admin/../../y"},
		{"/users/{id}/admin/", "/users/{id}", "CONNECT", "/users//admin/../y"},
	} {
		codes, hits := pairRequests(t, c.app, c.other, c.method, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s to %q", c.method, c.path, c.app)
		assert.Equal(t, 1, hits, "%s %s to %q", c.method, c.path, c.app)
	}
}
