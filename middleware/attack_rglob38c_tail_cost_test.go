package middleware_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRglob38cTailCost: without a template, a path no pattern
// matches was cut and matched by ServeMux once for each length of the
// routes ending in a gin or echo parameter: with 30 lengths ("/a/:x",
// "/a/b/:x", …) and a first segment of 1 MiB, Select allocated 66 bytes
// per byte of path (97 with the placeholder cut) and took 280ms. Now a
// length whose routes' literals the path's first segments miss is not
// cut: 6 bytes per byte, ~40ms, the cost of the table without them.
func TestAttackRglob38cTailCost(t *testing.T) {
	rt := middleware.NewRoutes(&charges{})
	for n := 1; n <= 30; n++ {
		require.NoError(t, rt.Add(fmt.Sprintf("GET /a%s/:x", strings.Repeat("/b", n-1)), &charges{}))
	}
	path := "/" + strings.Repeat("a", 200000) + strings.Repeat("/b", 40)
	r := httptest.NewRequest("GET", "/", nil)
	r.URL.Path = path
	assert.Less(t, selectBytesPerByte(t, rt, r), 20.0, "bytes allocated per byte of path")
}

// TestTailShapeStillMatches: the shape filter keeps every length a path
// may match: an escaped segment, a wildcard, one of several literals.
func TestTailShapeStillMatches(t *testing.T) {
	for _, c := range []struct{ route, path string }{
		{"GET /a/b/:x", "/%61/b/1/2"},
		{"GET /{id}/b/:x", "/zzz/b/1/2"},
		{"GET /c/b/:x", "/c/b/1/2"},
	} {
		m := quotaRoutesDefault(t, 1000, quota{"GET /e/b/:x", 1000}, quota{c.route, 1}, quota{"GET /d/b/:x", 1000})
		var codes []int
		for range 3 {
			codes = append(codes, serveHost(m.Handler(okHandler), "GET", c.path, "example.com"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s under %s", c.path, c.route)
	}
}
