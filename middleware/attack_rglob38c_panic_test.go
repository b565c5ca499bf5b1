package middleware_test

import (
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRglob38cEmptyPathNoPanic: an absolute-form request line ("GET
// http://example.com HTTP/1.1", which net/http accepts) has an empty
// path. With a route ending in a gin or echo parameter, Select cut it to
// the route's segments and sliced past its end: a panic on every such
// request ("http: panic serving …: slice bounds out of range [1:0]", the
// connection dropped). Now it is matched as any other path.
func TestAttackRglob38cEmptyPathNoPanic(t *testing.T) {
	rt := middleware.NewRoutes(&charges{})
	for _, p := range []string{"GET /users/:id", "GET /:id", "GET /a/:b/:c", "GET /v:version/x"} {
		require.NoError(t, rt.Add(p, &charges{}))
	}
	for _, path := range []string{"", "*", "users", "//", "/.", "/./", "/.."} {
		r := httptest.NewRequest("GET", "/", nil)
		r.URL.Path, r.URL.RawPath = path, ""
		assert.NotPanics(t, func() { _, _, _ = rt.Select(r, "") }, "%q", path)
	}
}
