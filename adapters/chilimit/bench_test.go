package chilimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/internal/httpbench"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

// BenchmarkOverhead is the cost of the limiter (allow path, every header
// on) over the same chi router without it.
func BenchmarkOverhead(b *testing.B) {
	m, err := middleware.New(limiter(b, core.GCRA{Rate: core.PerSecond(1_000_000_000)}), middleware.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		mount func(chi.Router)
	}{
		{"bare", func(chi.Router) {}},
		{"limited", func(r chi.Router) { r.Use(chilimit.Limit(m)) }},
		{"limited-mux", nil},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := chi.NewRouter()
			if c.mount == nil {
				r.Use(chilimit.LimitMux(m, r))
				c.mount = func(chi.Router) {}
			}
			r.Group(func(g chi.Router) {
				c.mount(g)
				g.Get("/users/{id}", ok)
			})
			req := httptest.NewRequest(http.MethodGet, "/users/42", nil)
			httpbench.Serve(b, r, req, http.StatusOK)
		})
	}
}

// BenchmarkInlineCatchAll is the cost of Limit inline on a catch-all
// route, which chi has found: Limit does not look it up again.
func BenchmarkInlineCatchAll(b *testing.B) {
	rt := middleware.NewRoutes(nil)
	if err := rt.Add("/files/*", limiter(b, core.GCRA{Rate: core.PerSecond(1_000_000_000)})); err != nil {
		b.Fatal(err)
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := chi.NewRouter()
	r.Get("/users/{id}", ok)
	r.With(chilimit.Limit(m)).Get("/files/*", ok)
	req := httptest.NewRequest(http.MethodGet, "/files/a/b.txt", nil)
	httpbench.Serve(b, r, req, http.StatusOK)
}

// BenchmarkManyMounts is LimitMux's cost on a router of 200 routes and
// 200 mounted sub-routers, each route asked once before: what a request
// costs must not grow with the routes and mount points the router has.
func BenchmarkManyMounts(b *testing.B) {
	m, err := middleware.New(limiter(b, core.GCRA{Rate: core.PerSecond(1_000_000_000)}), middleware.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r))
	for i := range 200 {
		r.Get(fmt.Sprintf("/r%d/{id}", i), ok)
		sub := chi.NewRouter()
		sub.Get("/", ok)
		r.Mount(fmt.Sprintf("/m%d", i), sub)
	}
	req := httptest.NewRequest(http.MethodGet, "/r7/42", nil)
	for i := range 200 {
		rr := httptest.NewRecorder()
		r.ServeHTTP(rr, httptest.NewRequest(http.MethodGet, fmt.Sprintf("/r%d/1", i), nil))
	}
	httpbench.Serve(b, r, req, http.StatusOK)
}
