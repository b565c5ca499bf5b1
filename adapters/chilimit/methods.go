package chilimit

import (
	"net/http"
	"reflect"
	"strings"

	"github.com/floodgate-go/floodgate/internal/routemethods"
	"github.com/go-chi/chi/v5"
)

// tables holds the route tables of the routers a Limit serves.
type tables struct {
	routemethods.Tables[chi.Routes]
}

// of returns the table of the router rctx routes with, nil for none.
func (t *tables) of(rctx *chi.Context) *routemethods.Table {
	if rctx == nil || rctx.Routes == nil {
		return nil
	}
	router := rctx.Routes
	if !mapKey(router) {
		return nil
	}
	return t.Of(router, walk)
}

// mapKey reports whether router can key a map (a *chi.Mux, or a
// comparable value of another type): the tables and mount points of
// other routers are not kept.
func mapKey(router chi.Routes) bool {
	if _, ok := router.(*chi.Mux); ok {
		return true
	}
	return reflect.ValueOf(router).Comparable()
}

// walk returns router's routes, read as chi.Walk reads them: each route
// under its pattern and under the pattern chi's RoutePattern gives its
// requests (without a trailing slash, "/*/" as "/"). Unlike chi.Walk, it
// panics with core.ErrInvalidConfig on a router mounted inside itself
// (see descent), which chi.Walk followed until the stack overflowed.
func walk(router chi.Routes) []routemethods.Route {
	var routes []routemethods.Route
	var visit func(r chi.Routes, parent string, d descent)
	visit = func(r chi.Routes, parent string, d descent) {
		for _, rt := range r.Routes() {
			if rt.SubRoutes != nil {
				visit(rt.SubRoutes, parent+rt.Pattern, d.into(rt.SubRoutes, parent+rt.Pattern))
				continue
			}
			route := strings.ReplaceAll(parent+rt.Pattern, "/*/", "/")
			for method, h := range rt.Handlers {
				if method == "*" {
					continue // chi lists each method of a Handle too
				}
				if chain, ok := h.(*chi.ChainHandler); ok {
					h = chain.Endpoint
				}
				id := identity(h)
				routes = append(routes, routemethods.Route{Method: method, Template: route, Handler: id})
				if p := routePattern(route); p != route {
					routes = append(routes, routemethods.Route{Method: method, Template: p, Handler: id})
				}
			}
		}
	}
	visit(router, "", descent{router})
	return routes
}

// routePattern returns the pattern chi's Context.RoutePattern gives the
// requests of a route walked as p, with the empty segments a mount
// point's own "/api/" leaves before a sub-router's pattern ("/api//*")
// dropped.
func routePattern(p string) string {
	for strings.Contains(p, "/*/") {
		p = strings.ReplaceAll(p, "/*/", "/")
	}
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	if p != "/" {
		p = strings.TrimSuffix(p, "/") // no "//" is left
	}
	return p
}

// handlerID identifies a handler by its type and a pointer.
type handlerID struct {
	t reflect.Type
	p uintptr
}

// identity returns a comparable value that is the same for the same
// handler, as chi compares handlers: a function by its code (closures of
// one function literal are one handler), a pointer by its address, a
// comparable value by its value; values of a type that cannot be compared
// by their type. It may take two handlers for one, each then limited like
// the other, never one handler for two.
func identity(h http.Handler) any {
	v := reflect.ValueOf(h)
	switch v.Kind() {
	case reflect.Func, reflect.Pointer, reflect.UnsafePointer, reflect.Chan, reflect.Map:
		return handlerID{v.Type(), v.Pointer()}
	}
	if v.Comparable() {
		return h
	}
	return v.Type()
}
