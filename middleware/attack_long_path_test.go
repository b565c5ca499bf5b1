package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request's path is the client's to choose, up to the server's header
// limit (1 MB by default). Routes matches it several times (as it is, its
// variants, its method as written, its host in lower case), and each match
// cleaned it into a slice of its segments: a path of 100,000 short
// segments made 390 bytes of garbage per byte of path (78 MB for 200 KB;
// 1.2 s of CPU for 600 KB, where ServeMux routes it in 3 ms), before the
// request is even decided: a client denied long ago still cost it all.
// Cleaning is now linear in bytes, nothing for a clean path: at most 29
// bytes per byte of path.
func TestAttackLongPathSelectCost(t *testing.T) {
	rt := middleware.NewRoutes(&charges{})
	for _, p := range []string{"/admin/", "GET /admin/{$}", "/admin/public", "POST /api/login", "/files/{p...}", "api.example.com/login", "/api/", "GET /users/{id}"} {
		require.NoError(t, rt.Add(p, &charges{}))
	}
	for _, unit := range []string{"/a", "/A", "/..", "/x/", "/", "/%2E%2E"} {
		path := "/admin" + strings.Repeat(unit, 100000)
		for _, method := range []string{"GET", "get"} {
			r := httptest.NewRequest("GET", "/", nil)
			r.Method, r.Host, r.URL.Path = method, "API.example.com.", path
			if strings.Contains(unit, "%") {
				r.URL.RawPath, r.URL.Path = path, strings.ReplaceAll(path, "%2E", ".")
			}
			assert.Less(t, selectBytesPerByte(t, rt, r), 40.0, "%s %q×100000: bytes allocated per byte of path", method, unit)
		}
	}
}

// selectBytesPerByte returns the bytes one rt.Select of r (no template)
// allocates per byte of r's path as it came (escaped).
func selectBytesPerByte(t *testing.T, rt *middleware.Routes, r *http.Request) float64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := rt.Select(r, "")
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(len(r.URL.EscapedPath()))
}
