package middleware_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// ServeMux matches a pattern's literal segments to the request's segments
// unescaped: "/%61dmin/%2E%2E/healthz" is served by the "/admin/" handler,
// like "/admin/%2E%2E/healthz". Before, the check that keeps the path's
// variants under the served pattern compared the escaped path with
// "/admin/" as text: the path was judged to have left the subtree, no
// variant was tried, and each such request was counted on no route at all
// (unlimited without a default, else on the default's looser budget).
func TestAttackEncodedLettersDoNotLeaveTheAppsSubtree(t *testing.T) {
	for _, c := range []struct{ app, method, path string }{
		{"/admin/", "GET", "/%61dmin/%2E%2E/healthz"},
		{"/admin/", "POST", "/%61%64%6D%69%6E/%2e%2e/healthz/"},
		{"/admin/", "GET", "/%61dmin/x/%2E%2E/%2E%2E/healthz"},
		{"GET /files/{p...}", "GET", "/fil%65s/%2E%2E/healthz"},
		{"api.example.com/v1/", "GET", "/%761/%2E%2E/healthz"},
	} {
		codes, hits := subtreeRequests(t, c.app, c.app, c.method, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s to %q", c.method, c.path, c.app)
		assert.Equal(t, 1, hits, "%s %s to %q", c.method, c.path, c.app)
	}
}
