// Package echolimit mounts a floodgate [middleware.Middleware] on an echo
// server (github.com/labstack/echo/v4). The common case is one line, each
// client IP at one rate: e.Use(echolimit.MustPerIP("100/min")) ([PerIP]).
//
// [Limit] passes echo's route template
// (c.Path(), "/users/:id") so that per-route policies
// ([middleware.Routes]) apply to a route however many URLs it matches.
//
// Mount it with e.Use(echolimit.Limit(m)), on a group, or on single
// routes; preferably not with e.Pre, which runs before routing, when
// c.Path() is not yet known: Limit then finds the route as echo will
// (Router.Find on the path as the Pre middleware before it left it), and
// a request no handler of its method serves is matched by its path (see
// middleware.Routes). A Pre middleware mounted after Limit that rewrites
// the path (RemoveTrailingSlash, Rewrite) routes the request by a path
// Limit did not see.
//
// The decision, the headers and the 429 answer are the middleware's. Keys
// come from Options.Key, by default the client IP from RemoteAddr: the
// client of the server's IPExtractor is used only if you opt in with
// [RealIP], and never echo's legacy RealIP, which without an IPExtractor
// believes any X-Forwarded-For.
//
// Key functions see the values that middleware run before Limit stored
// with c.Set, under string keys, as values of the request's context: an
// authentication middleware that calls c.Set("user", name) (echo-jwt's
// convention) before e.Use(echolimit.Limit(m)) (or on the group Limit is
// mounted on after it) lets Options.Key be keyfunc.UserFromContext("user"),
// and a custom key function read any value with r.Context().Value(key).
// Values set after Limit runs are not seen; a request without the value is
// refused (403) unless the key function falls back (keyfunc.First).
package echolimit

import (
	"fmt"

	"github.com/floodgate-go/floodgate/internal/keyrequest"
	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
)

// Limit returns echo middleware limiting requests with m by c.Path(). A
// request m refuses is answered by m, and the middleware returns nil so
// that echo writes nothing more.
//
// When m counts only some statuses (Options.CountIf), an error the handler
// returns is handed to echo's HTTPErrorHandler at once, so that the status
// it writes is the one counted, and Limit returns nil: middleware mounted
// outside Limit see the written response, not the error. A handler that
// returns nil without writing a response, or takes the connection over,
// leaves the request counted (see middleware.Admission.End). Do not mount
// m.Handler with echo.WrapMiddleware for CountIf: echo writes a returned
// error only after that middleware has returned, so every such request
// stays counted, each reported as middleware.ErrNoResponse.
//
// It panics, when the server is built, if m is nil or not made by
// middleware.New or NewSelect. HEAD requests to a route registered for GET
// and HEAD (e.Match) are limited in the GET route's buckets by
// [middleware.Routes]; see there for methods and CORS preflights. A
// preflight echo routes to a handler of OPTIONS is counted as that
// handler's request; mounted with e.Pre, before echo routes, Limit cannot
// tell, and the preflight is decided by Options.Preflight (by default
// limited as strictly in a bucket of its own).
//
// The routes of the server (c.Echo(), the router of the request's host;
// read at the first request and again for a route added since) tell
// Routes which methods reach the handler a request reaches: a handler
// registered for every method (Any) or several (Match) is limited by the
// route guarding it whatever method reaches it, so the handler of
// e.Any("/login", h) limited as "POST /login" is limited so for a PUT, a
// DELETE, a GET with credentials in its query; a handler registered for
// GET alone keeps its own route. echo knows a handler by its route's name,
// its function's by default: two handlers of one name (closures of one
// function, echo.WrapHandler's) count as one; give a method a route of its
// own to keep its handler apart.
//
// m's key function and callbacks see c.Set values (see the package
// documentation) through a copy of the request Limit makes for each
// decision: one allocation, about 350 bytes.
func Limit(m *middleware.Middleware) echo.MiddlewareFunc { return limit(m, true) }

// limit is Limit; routes says whether m's key function and callbacks are
// given c.Set values and m the methods reaching a handler (PerIP's, which
// read only RemoteAddr and limit every route alike, are not).
func limit(m *middleware.Middleware, routes bool) echo.MiddlewareFunc {
	if err := m.Validate(); err != nil {
		panic(fmt.Errorf("echolimit: %w", err))
	}
	l := &limiter{m: m}
	if routes {
		l.tables = new(tables)
	}
	// echo wraps each request's handler in its middleware anew: the
	// closure holds one pointer besides next.
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error { return l.serve(c, next) }
	}
}

// limiter is a Limit or a PerIP: tables is nil for PerIP, whose m reads
// neither c.Set values nor routes; options then tells the preflights that
// reach a handler of their own method, as tables does for Limit.
type limiter struct {
	m       *middleware.Middleware
	tables  *tables
	options tables
}

// serve decides c's request and, when it is admitted, serves it with next.
func (l *limiter) serve(c echo.Context, next echo.HandlerFunc) error {
	r := c.Request()
	route, methods := c.Path(), ""
	ts := &l.options
	if l.tables != nil {
		route, methods = l.tables.route(c)
		r = withValues(c)
		ts = l.tables
	}
	if methods == "" {
		template := route
		if template == "" && l.tables == nil {
			// PerIP mounted with e.Pre, before echo routes: the route
			// it will serve a preflight with, as tables.route finds it
			// for Limit (else the preflight, not known to reach a
			// handler, would get a bucket of its own: a second budget).
			template, methods = l.options.prePreflight(c)
		}
		if template != "" && methods == "" {
			if p := routepath.PreflightPattern(r, template); p != "" && ts.servesOptionsAt(c, template) {
				// echo routes the preflight to a handler of its own method
				// (alone: PerIP's every handler), decided as the OPTIONS
				// request it is (see middleware.Preflight).
				methods = p
			}
		}
	}
	saved := r.Pattern
	if methods != "" {
		r.Pattern = methods // for the decision only (see middleware.Routes)
	}
	a, ok := l.m.Begin(c.Response(), r, route)
	r.Pattern = saved
	keyrequest.Done(c.Request(), r)
	if !ok {
		return nil
	}
	if in := a.Request(c.Request()); in != c.Request() {
		c.SetRequest(in) // tells the middlewares inside of the admission
	}
	if !a.Counting() {
		return next(c)
	}
	// The status counted is the one that reaches the client's writer:
	// nothing written (0) or a connection taken over is no success (see
	// middleware.Admission.End).
	res := c.Response()
	w := res.Writer
	cw, status := middleware.Capture(w)
	res.Writer = cw
	defer func() { res.Writer = w }()
	if err := next(c); err != nil {
		c.Error(err)
	}
	a.End(c.Request().Context(), status())
	return nil
}
