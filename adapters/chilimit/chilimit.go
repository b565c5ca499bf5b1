// Package chilimit mounts a floodgate [middleware.Middleware] on a chi
// router (github.com/go-chi/chi/v5), passing chi's route pattern
// ("/users/{id}") as the route template, so that per-route policies
// ([middleware.Routes]) apply to a route however many URLs it matches.
//
// chi completes a request's route pattern only while routing, so the
// limiter must run where the pattern is known. Two mounts do that:
//
//   - [Limit] as inline middleware: r.With(chilimit.Limit(m)).Get(...), or
//     r.Use(chilimit.Limit(m)) inside r.Group. chi runs inline middleware
//     after the route is found, wherever the group is (in r.Route too).
//   - [LimitMux] with the root router's Use: it resolves the pattern itself
//     with the router's Find before routing, so it limits every request,
//     404s and 405s included (with the route template "").
//
// The Use of a router runs before that router routes: Limit mounted with
// the root router's Use sees no pattern (every request is then selected as
// by plain net/http: [middleware.Routes] matches ServeMux patterns, not
// chi's), and with the Use of a sub-router made by r.Route or r.Mount it
// sees only the mount point's pattern ("/api/*"). Use LimitMux on the root
// router, or Limit inline, instead.
//
// The decision, the headers and the 429 answer are the middleware's; the
// key is Options.Key (by default the client IP from RemoteAddr).
package chilimit

import (
	"net/http"
	"sync"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

// Limit returns chi inline middleware limiting requests with m by chi's
// route pattern; see the package documentation for where to mount it.
func Limit(m *middleware.Middleware) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			serve(m, w, r, chi.RouteContext(r.Context()).RoutePattern(), next)
		})
	}
}

// LimitMux returns middleware for router.Use that limits requests with m
// by the route pattern router.Find resolves for them, before chi routes
// them. router is the router it is mounted on (its routes may be added
// after the Use call).
func LimitMux(m *middleware.Middleware, router chi.Routes) func(http.Handler) http.Handler {
	pool := sync.Pool{New: func() any { return chi.NewRouteContext() }}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path := r.URL.RawPath
			if path == "" {
				path = r.URL.Path
			}
			rctx := pool.Get().(*chi.Context)
			rctx.Reset()
			pattern := router.Find(rctx, r.Method, path)
			pool.Put(rctx)
			serve(m, w, r, pattern, next)
		})
	}
}

func serve(m *middleware.Middleware, w http.ResponseWriter, r *http.Request, pattern string, next http.Handler) {
	a, ok := m.Begin(w, r, pattern)
	if !ok {
		return
	}
	if !a.Counting() {
		next.ServeHTTP(w, r)
		return
	}
	cw, status := middleware.Capture(w)
	next.ServeHTTP(cw, r)
	a.End(r.Context(), status())
}
