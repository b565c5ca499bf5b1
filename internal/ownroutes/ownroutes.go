// Package ownroutes lets a router adapter tell
// [github.com/floodgate-go/floodgate/middleware.Routes], while a request
// is decided, which routes its router serves with handlers of its own:
// Routes matches a request's path (and its variants) as ServeMux does,
// to find the route of a handler mounted under a router's catch-all
// (a ServeMux on chi's "/legacy/*" serving "POST /legacy/login"); a route
// of the router's own that ServeMux matches the path to, but the router
// routes the path elsewhere ("/b", which chi serves by r.Route("/b", …),
// not by the root's "/{id}"), guards no handler the request reaches.
package ownroutes

import (
	"context"
	"net/http"
	"sync/atomic"
)

// Router is the routes of the router serving a request.
type Router interface {
	// Reaches reports whether a request of method whose path is path
	// (the request's, or a variant a rewriting middleware routes) may
	// reach the handler of the route written as template (a route's
	// path, in ServeMux's syntax or the router's): true unless template
	// is a route of the router's own and the router routes path to
	// another route.
	Reaches(method, path, template string) bool
}

type key struct{}

// used is set once a request has carried a Router: until then Of looks
// nothing up.
var used atomic.Bool

// Deciding makes r carry rt, in place, and returns the function that
// gives r its context back: r is decided as itself, so that what a key
// function changes in it (a body read and put back, a form parsed) is
// the handler's.
func Deciding(r *http.Request, rt Router) (restore func()) {
	if !used.Load() {
		used.Store(true)
	}
	ctx := r.Context()
	*r = *r.WithContext(context.WithValue(ctx, key{}, rt))
	return func() { *r = *r.WithContext(ctx) }
}

// Of returns the Router r carries, nil for none.
func Of(r *http.Request) Router {
	if !used.Load() {
		return nil
	}
	rt, _ := r.Context().Value(key{}).(Router)
	return rt
}
