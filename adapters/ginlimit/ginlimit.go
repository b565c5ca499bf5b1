// Package ginlimit mounts a floodgate [middleware.Middleware] on a gin
// engine (github.com/gin-gonic/gin). The common case is one line, each
// client IP at one rate: engine.Use(ginlimit.MustPerIP("100/min"))
// ([PerIP]).
//
// [Limit] passes gin's route template
// (c.FullPath(), "/users/:id") so that per-route policies
// ([middleware.Routes]) apply to a route however many URLs it matches.
//
// Mount it with engine.Use(ginlimit.Limit(m)), on a group, or on single
// routes: gin routes a request before running its handlers, so the
// template is known wherever the handler runs. Requests matching no route
// are limited with the template "".
//
// The decision, the headers and the 429 answer are the middleware's. Keys
// come from Options.Key, by default the client IP from RemoteAddr: gin's
// ClientIP, which trusts X-Forwarded-For from every peer unless
// engine.SetTrustedProxies says otherwise, is used only if you opt in with
// [ClientIP].
//
// Key functions see the values that handlers run before Limit stored with
// c.Set, as values of the request's context: an authentication middleware
// that calls c.Set("user", name) before engine.Use(ginlimit.Limit(m)) (or
// on the group that Limit is mounted on after it) lets Options.Key be
// keyfunc.UserFromContext("user"), and a custom key function read any
// value with r.Context().Value(key). Values set after Limit runs are not
// seen; a request without the value is refused (403) unless the key
// function falls back (keyfunc.First).
package ginlimit

import (
	"bufio"
	"fmt"
	"net"
	"net/http"

	"github.com/floodgate-go/floodgate/internal/keyrequest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// Limit returns a gin handler limiting requests with m by c.FullPath(). A
// request m refuses is answered by m and aborted. It panics, when the
// engine is built, if m is nil or not made by middleware.New or NewSelect.
//
// When m counts only some statuses (Options.CountIf), the status counted
// is the one written or set by the handlers after Limit; a response left
// unwritten at gin's default 200 counts as a failure (500) when c.Error
// recorded errors, and otherwise, like a hijacked connection, stays
// counted without asking CountIf (see middleware.Admission.End).
//
// HEAD requests to a route registered for GET and HEAD (engine.Match) are
// limited in the GET route's buckets by [middleware.Routes]; see there for
// methods and CORS preflights. gin gives a request that matches no route
// the template "": a preflight for a route without an OPTIONS handler is
// then matched as by plain net/http (ServeMux patterns, else the default
// limiter). Mount a CORS handler before Limit, or add OPTIONS routes, to
// have preflights limited like their route.
//
// m's key function and callbacks see c.Set values (see the package
// documentation) through a copy of the request, which Limit makes only for
// requests that hold such values: two allocations, about 350 bytes.
func Limit(m *middleware.Middleware) gin.HandlerFunc { return limit(m, true) }

// limit is Limit; values says whether m's key function and callbacks are
// given c.Set values (PerIP's, which read only RemoteAddr, are not).
func limit(m *middleware.Middleware, values bool) gin.HandlerFunc {
	if err := m.Validate(); err != nil {
		panic(fmt.Errorf("ginlimit: %w", err))
	}
	return func(c *gin.Context) {
		r := c.Request
		if values {
			r = withKeys(c)
		}
		a, ok := m.Begin(c.Writer, r, c.FullPath())
		keyrequest.Done(c.Request, r)
		if !ok {
			c.Abort()
			return
		}
		if !a.Counting() {
			c.Next()
			return
		}
		hw := &hijackWatch{ResponseWriter: c.Writer}
		c.Writer = hw
		defer func() { c.Writer = hw.ResponseWriter }()
		c.Next()
		a.End(c.Request.Context(), outcome(c, hw))
	}
}

// hijackWatch notes whether a handler took the connection over.
type hijackWatch struct {
	gin.ResponseWriter
	hijacked bool
}

// Hijack takes the connection, noting it: no status tells the outcome.
func (w *hijackWatch) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := w.ResponseWriter.Hijack()
	if err == nil {
		w.hijacked = true
	}
	return c, rw, err
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *hijackWatch) Unwrap() http.ResponseWriter { return w.ResponseWriter }
