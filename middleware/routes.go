package middleware

import (
	"fmt"
	"net/http"
	"reflect"

	"github.com/floodgate-go/floodgate/core"
)

// Routes is a [Selector] that picks a limiter by route: Go 1.22 ServeMux
// patterns ("POST /login", "GET /api/", "/users/{id}") for plain net/http,
// and the router's own template ("/users/{id}", "/users/:id") when an
// adapter passes one. The route is part of the key, so two routes never
// share buckets, even with the same limiter, unless [Routes.Share] groups
// them. Configure Routes before serving; it is then safe for concurrent use.
type Routes struct {
	mux      *http.ServeMux
	routes   map[string]*route // by pattern, as added
	def      Limiter
	limiters map[Limiter]int // how many scopes use each limiter
}

type route struct {
	lim   Limiter
	scope string
}

// NewRoutes returns routes that give requests matching no route to def, or
// leave them unlimited when def is nil.
func NewRoutes(def Limiter) *Routes {
	return &Routes{mux: http.NewServeMux(), routes: map[string]*route{}, def: def, limiters: map[Limiter]int{}}
}

// Add limits the requests matching pattern with l.
func (rt *Routes) Add(pattern string, l Limiter) error {
	return rt.Share(pattern, l, pattern)
}

// Share limits the requests matching any of patterns with l, in buckets
// they share under the name group.
func (rt *Routes) Share(group string, l Limiter, patterns ...string) (err error) {
	if l == nil || len(patterns) == 0 {
		return fmt.Errorf("middleware: route group %q: nil limiter or no pattern: %w", group, core.ErrInvalidConfig)
	}
	if !reflect.TypeOf(l).Comparable() {
		return fmt.Errorf("middleware: route group %q: limiter type %T is not comparable: %w", group, l, core.ErrInvalidConfig)
	}
	rte := &route{lim: l, scope: group}
	for _, p := range patterns {
		if _, dup := rt.routes[p]; dup {
			return fmt.Errorf("middleware: route %q added twice: %w", p, core.ErrInvalidConfig)
		}
		if err := register(rt.mux, p); err != nil {
			return err
		}
		rt.routes[p] = rte
	}
	rt.limiters[l]++
	return nil
}

// register adds pattern to mux, turning ServeMux's panic on an invalid or
// conflicting pattern into an error.
func register(mux *http.ServeMux, pattern string) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("middleware: route %q: %v: %w", pattern, v, core.ErrInvalidConfig)
		}
	}()
	mux.Handle(pattern, http.NotFoundHandler())
	return nil
}

// Select picks the limiter of the route r matches. With a route template
// from an adapter it looks up "METHOD template", then "template"; without
// one it matches r against the patterns as a ServeMux would.
func (rt *Routes) Select(r *http.Request, template string) (Limiter, string, error) {
	var rte *route
	if template != "" {
		if rte = rt.routes[r.Method+" "+template]; rte == nil {
			rte = rt.routes[template]
		}
	} else if _, pattern := rt.mux.Handler(r); pattern != "" {
		rte = rt.routes[pattern]
	}
	if rte == nil {
		if rt.def == nil {
			return nil, "", nil
		}
		return rt.def, "", nil
	}
	if rt.limiters[rte.lim] == 1 && rte.lim != rt.def {
		// The limiter serves this route alone: its keys need no scope.
		return rte.lim, "", nil
	}
	return rte.lim, rte.scope, nil
}

// Patterns returns the patterns added, for documentation and tests.
func (rt *Routes) Patterns() []string {
	ps := make([]string, 0, len(rt.routes))
	for p := range rt.routes {
		ps = append(ps, p)
	}
	return ps
}
