package chilimit

import (
	"net/http"
	"strings"
	"sync"

	"github.com/floodgate-go/floodgate/internal/ownroutes"
	"github.com/floodgate-go/floodgate/internal/routemethods"
	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/go-chi/chi/v5"
)

// ownRoutes is the routes of the root router serving a request, as
// middleware.Routes asks for them (see ownroutes.Router): chi routes a
// path to one route, which a route of chi's own that ServeMux would match
// the path to is not ("/b", served by r.Route("/b", …)'s "/*", matches
// the root's "/{id}" in ServeMux).
type ownRoutes struct {
	root chi.Routes
	t    *routemethods.Table
	st   stubs
	// routing is the method chi routes the request by, when a middleware
	// before the limiter set one (GetHead, a method override): "" for
	// its own.
	routing string
}

// findPool holds the routing contexts of Reaches.
var findPool = sync.Pool{New: func() any { return chi.NewRouteContext() }}

// Reaches implements ownroutes.Router: a template the root's table does
// not list (a mounted handler's route, one written otherwise than chi's
// template) may be reached; one it lists only when chi routes method and
// path to it, or to no route at all.
func (o ownRoutes) Reaches(method, path, template string) bool {
	if !strings.HasPrefix(template, "/") {
		return true
	}
	if _, listed := o.t.Lookup(template, routepath.Method(method)); !listed {
		return true
	}
	want := routepath.MuxPath(template)
	rctx := findPool.Get().(*chi.Context)
	defer findPool.Put(rctx)
	methods := [...]string{routepath.Method(method), routepath.Method(o.routing), ""}
	if methods[0] == http.MethodHead {
		methods[2] = http.MethodGet // as GetHead routes it
	}
	for _, m := range methods {
		if m == "" {
			continue
		}
		p, _ := findMethods(o.root, rctx, [2]string{m}, path, o.st)
		if p == "" || routepath.MuxPath(p) == want {
			return true
		}
	}
	return false
}

// ownOf returns, when chi serves r by a catch-all (pattern, where Routes
// matches r's path further), the routes of root, whose table is t, read
// with ms, for middleware.Routes to be told of them; nil otherwise.
func ownOf(r *http.Request, pattern string, root chi.Routes, t *routemethods.Table, ms *mounts) ownroutes.Router {
	if t == nil || !strings.HasSuffix(pattern, "*") {
		return nil
	}
	routing := ""
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		routing = rctx.RouteMethod
	}
	return ownRoutes{root, t, stubs{ms, root, nil, t}, routing}
}
