package middleware_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
)

// BenchmarkSelectGlobs is Select's cost without a template (the limiter
// before the router) with n glob routes ("GET /r{i}:id/x"), for paths an
// attacker chooses: short, of 2,000 segments, and of one segment of 1
// MiB (net/http's header limit), which each glob route scanned before
// the path was read once for them all.
func BenchmarkSelectGlobs(b *testing.B) {
	l, err := core.NewLimiter(core.MustPolicy("r", core.Limit{Name: "r", Algorithm: core.GCRA{Rate: core.PerSecond(1_000_000_000)}}))
	if err != nil {
		b.Fatal(err)
	}
	paths := map[string]string{
		"short":    "/r1v/x",
		"2000segs": strings.Repeat("/a", 2000),
		"1MiBseg":  "/" + strings.Repeat("a", 1<<20),
	}
	for _, n := range []int{0, 10, 1000} {
		rt := middleware.NewRoutes(l)
		for i := range n {
			if err := rt.Add(fmt.Sprintf("GET /r%d:id/x", i), l); err != nil {
				b.Fatal(err)
			}
		}
		if err := rt.Add("GET /users/{id}", l); err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"short", "2000segs", "1MiBseg"} {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.URL.Path = paths[name]
			b.Run(fmt.Sprintf("globs=%d/path=%s", n, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := rt.Select(r, ""); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
