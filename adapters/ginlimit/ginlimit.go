// Package ginlimit mounts a floodgate [middleware.Middleware] on a gin
// engine (github.com/gin-gonic/gin). The common case is one line, each
// client IP at one rate: engine.Use(ginlimit.MustPerIP("100/min"))
// ([PerIP]).
//
// [Limit] passes gin's route template
// (c.FullPath(), "/users/:id") so that per-route policies
// ([middleware.Routes]) apply to a route however many URLs it matches.
//
// Mount it with engine.Use(ginlimit.Limit(m, engine)), on a group, or on
// single routes: gin routes a request before running its handlers, so the
// template is known wherever the handler runs. Requests matching no route
// are limited with the template "". The engine's routes tell which methods
// reach each handler (see [Limit]).
//
// The decision, the headers and the 429 answer are the middleware's. Keys
// come from Options.Key, by default the client IP from RemoteAddr: gin's
// ClientIP, which trusts X-Forwarded-For from every peer unless
// engine.SetTrustedProxies says otherwise, is used only if you opt in with
// [ClientIP], and its forwarding headers only once the engine no longer
// trusts every peer.
//
// Key functions see the values that handlers run before Limit stored with
// c.Set, as values of the request's context: an authentication middleware
// that calls c.Set("user", name) before engine.Use(ginlimit.Limit(m, engine))
// (or on the group that Limit is mounted on after it) lets Options.Key be
// keyfunc.UserFromContext("user"), and a custom key function read any value
// with r.Context().Value(key). Values set after Limit runs are not seen; a
// request without the value is refused (403) unless the key function falls
// back (keyfunc.First).
package ginlimit

import (
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/keyrequest"
	"github.com/floodgate-go/floodgate/internal/problem"
	"github.com/floodgate-go/floodgate/internal/routemethods"
	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// Limit returns a gin handler limiting the requests of engine with m by
// c.FullPath(). A request m refuses is answered by m and aborted. It
// panics, when the engine is built, if m is nil or not made by
// middleware.New or NewSelect, or if engine is nil.
//
// engine is the engine Limit is mounted on, or on a group or route of: its
// routes (engine.Routes(), read at the first request and again for a route
// added since) tell which methods reach the handler a request reaches (a
// request routed to a route engine does not list, by another engine, is
// refused 500, its error recorded with c.Error), so that [middleware.Routes]
// limits every method reaching a handler registered for several (Any, Match)
// by the route guarding it: the handler of e.Any("/login", h) limited as
// "POST /login" is limited so for a PUT, a DELETE, a GET with credentials in
// its query. gin knows a handler by its function's name: two handlers of one
// name (closures of one function, gin.WrapF's) count as one; give a method a
// route of its own to keep its handler apart.
//
// When m counts only some statuses (Options.CountIf), the status counted
// is the one written or set by the handlers after Limit. A response left
// unwritten at gin's default 200 with errors recorded by c.Error is judged
// by the status a middleware outside Limit writes for them (the usual
// error-handling middleware), and stays counted if none is written through
// c.Writer; left so without errors, or with the connection taken over, it
// stays counted without asking CountIf (see middleware.Admission.End).
//
// HEAD requests to a route registered for GET and HEAD (engine.Match) are
// limited in the GET route's buckets by [middleware.Routes]; see there for
// methods and CORS preflights. gin gives a request that matches no route
// the template "": a preflight for a route without an OPTIONS handler is
// then matched as by plain net/http (ServeMux patterns, else the default
// limiter; a "GET /items/:id" route limits the preflights announcing a GET
// there, in a bucket of their own by default). A CORS handler that answers
// preflights must then be mounted after Limit: mounted before it, it
// answers them before Limit sees them, and they are not limited at all.
// OPTIONS routes have them limited like their route too.
//
// m's key function and callbacks see c.Set values (see the package
// documentation) through a copy of the request, which Limit makes only for
// requests that hold such values: two allocations, about 350 bytes.
func Limit(m *middleware.Middleware, engine *gin.Engine) gin.HandlerFunc {
	if engine == nil {
		panic(fmt.Errorf("ginlimit: Limit: nil engine: %w", core.ErrInvalidConfig))
	}
	return limit(m, true, table(engine))
}

// otherEngine refuses c's request, routed to route by an engine whose
// routes Limit was not given (see [Limit]): which methods reach its
// handler is not known, and limiting them by route alone would let every
// method but the route's own reach a handler of several on the default
// limit. The error is recorded with c.Error, for gin's logger.
func otherEngine(c *gin.Context, route string) {
	_ = c.Error(fmt.Errorf("ginlimit: Limit: route %q is not one of the engine Limit was given: give Limit the engine it is mounted on: %w", route, core.ErrInvalidConfig))
	problem.Write(c.Writer, &problem.Details{Title: http.StatusText(http.StatusInternalServerError),
		Status: http.StatusInternalServerError, Detail: "the rate limiter is not configured"}, false)
	c.Abort()
}

// table returns the table of engine's routes, each handler known by its
// name.
func table(engine *gin.Engine) *routemethods.Table {
	return routemethods.New(func() []routemethods.Route {
		var routes []routemethods.Route
		for _, r := range engine.Routes() {
			routes = append(routes, routemethods.Route{Method: r.Method, Template: r.Path, Handler: r.Handler})
		}
		return routes
	})
}

// limit is Limit; values says whether m's key function and callbacks are
// given c.Set values (PerIP's, which read only RemoteAddr, are not), and
// t, when not nil, is the table of the engine's routes.
func limit(m *middleware.Middleware, values bool, t *routemethods.Table) gin.HandlerFunc {
	if err := m.Validate(); err != nil {
		panic(fmt.Errorf("ginlimit: %w", err))
	}
	return func(c *gin.Context) {
		r := c.Request
		if values {
			r = withKeys(c)
		}
		route, methods := c.FullPath(), ""
		if t != nil && route != "" {
			var listed bool
			// gin routed r by its method to route (FullPath): a route of
			// it added there since the routes were read is read.
			if methods, listed = t.Routed(route, c.Request.Method); !listed {
				otherEngine(c, route)
				return
			}
		}
		if methods == "" && route != "" {
			// gin routed r to a handler of its method alone (PerIP's
			// every handler): a preflight is decided as the OPTIONS
			// request it is (see middleware.Preflight).
			methods = routepath.PreflightPattern(r, route)
		}
		saved := r.Pattern
		if methods != "" {
			r.Pattern = methods // for the decision only (see middleware.Routes)
		}
		a, ok := m.Begin(c.Writer, r, route)
		r.Pattern = saved
		keyrequest.Done(c.Request, r)
		if !ok {
			c.Abort()
			return
		}
		c.Request = a.Request(c.Request) // tells the middlewares inside of the admission
		if !a.Counting() {
			c.Next()
			return
		}
		count(c, &a)
	}
}
