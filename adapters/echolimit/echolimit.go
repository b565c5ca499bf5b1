// Package echolimit mounts a floodgate [middleware.Middleware] on an echo
// server (github.com/labstack/echo/v4). The common case is one line, each
// client IP at one rate: e.Use(echolimit.MustPerIP("100/min")) ([PerIP]).
//
// [Limit] passes echo's route template
// (c.Path(), "/users/:id") so that per-route policies
// ([middleware.Routes]) apply to a route however many URLs it matches.
//
// Mount it with e.Use(echolimit.Limit(m)), on a group, or on single
// routes; not with e.Pre, which runs before routing, when c.Path() is not
// yet known (routes are then matched by the request's path alone: see
// middleware.Routes).
//
// The decision, the headers and the 429 answer are the middleware's. Keys
// come from Options.Key, by default the client IP from RemoteAddr: echo's
// RealIP, which without an IPExtractor believes any X-Forwarded-For, is
// used only if you opt in with [RealIP].
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
// [middleware.Routes]; see there for methods and CORS preflights.
//
// m's key function and callbacks see c.Set values (see the package
// documentation) through a copy of the request Limit makes for each
// decision: one allocation, about 350 bytes.
func Limit(m *middleware.Middleware) echo.MiddlewareFunc { return limit(m, true) }

// limit is Limit; values says whether m's key function and callbacks are
// given c.Set values (PerIP's, which read only RemoteAddr, are not).
func limit(m *middleware.Middleware, values bool) echo.MiddlewareFunc {
	if err := m.Validate(); err != nil {
		panic(fmt.Errorf("echolimit: %w", err))
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if values {
				r = withValues(c)
			}
			a, ok := m.Begin(c.Response(), r, c.Path())
			keyrequest.Done(c.Request(), r)
			if !ok {
				return nil
			}
			if !a.Counting() {
				return next(c)
			}
			// The status counted is the one that reaches the client's
			// writer: nothing written (0) or a connection taken over is
			// no success (see middleware.Admission.End).
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
	}
}
