package echolimit

import (
	"net/http"

	"github.com/floodgate-go/floodgate/internal/routemethods"
	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/labstack/echo/v4"
)

// tables holds the route tables of the routers a Limit serves.
type tables struct {
	routemethods.Tables[*echo.Router]
}

// route returns the route template c's request is limited by, and the
// methods reaching its handler there (see routemethods). Before echo
// routes (e.Pre), the template is found as echo will find it, and given
// whenever a handler of the request's method is routed there, as c.Path()
// is once echo routes: echo serves paths that its request's path names no
// route of by ServeMux's rules ("/users/5/x" reaches "/users/:id", whose
// last parameter takes the rest of the path; "/admin/./public" reaches
// "/admin/*" as it comes), which matched by the path alone reached the
// handler on another route's limit, or none.
func (t *tables) route(c echo.Context) (template, methods string) {
	e := c.Echo()
	if e == nil {
		return c.Path(), ""
	}
	r := c.Request()
	router := routerOf(e, r)
	template = c.Path()
	routed := template != ""
	if !routed {
		template = find(e, router, r.Method, echo.GetPath(c.Request()))
		if template == "" {
			return "", ""
		}
	}
	tab := t.Of(router, routes)
	if anyMethod(r.Method) {
		// echo routes r to template: a route of r's method added there
		// since the routes were read is read (a made-up method, which
		// echo answers 405 at any template, is not asked for).
		methods, _ = tab.Routed(template, r.Method)
	} else {
		methods = tab.Pattern(template, r.Method)
	}
	if !routed && methods == "" && !tab.Serves(template, r.Method) {
		// echo will answer it itself (405, its own OPTIONS answer): no
		// handler of the route runs, and the path is matched alone.
		template = ""
	}
	return template, methods
}

// anyMethod reports whether echo's Any registers method: net/http's, and
// PROPFIND and REPORT. A route of one of them added after the routes were
// read (e.Any("/login", login) beside e.POST("/login", login)) is read
// when echo routes a request by it; a PROPFIND reached login past "POST
// /login" while net/http's methods alone were read again. Each is read
// once at most for each template.
func anyMethod(method string) bool {
	return routemethods.Standard(method) || method == echo.PROPFIND || method == echo.REPORT
}

// servesOptionsAt reports whether echo routes c's request, an OPTIONS
// request, with template (c.Path() once it has routed it) to a handler of
// an OPTIONS route (one of Any's included), not to the answer echo gives a
// path without one (405, or its automatic OPTIONS answer) or to a
// not-found handler: what the router lists at template.
func (t *tables) servesOptionsAt(c echo.Context, template string) bool {
	e := c.Echo()
	if e == nil || template == "" {
		return false
	}
	r := c.Request()
	router := routerOf(e, r)
	return t.Of(router, routes).Serves(template, r.Method)
}

// prePreflight returns, for a CORS preflight that echo has not routed
// yet (a middleware mounted with e.Pre), the template echo's router finds
// for it now, and the pattern that counts it in the client's bucket when
// the router lists no route there: nothing matched, or a RouteNotFound
// handler. A Pre middleware mounted after (RemoveTrailingSlash, Rewrite)
// may yet rewrite such a path to a handler's ("/login/" to "/login"),
// which a bucket of the preflights' own would let run a second budget; a
// path the router lists is decided by whether its handler serves OPTIONS.
// It returns "", "" for any other request.
func (t *tables) prePreflight(c echo.Context) (template, pattern string) {
	r := c.Request()
	e := c.Echo()
	if e == nil || c.Path() != "" {
		return "", ""
	}
	if _, ok := routepath.Preflight(r); !ok {
		return "", ""
	}
	path := echo.GetPath(r)
	router := routerOf(e, r)
	template = find(e, router, r.Method, path)
	if template != "" {
		if _, listed := t.Of(router, routes).Lookup(template, r.Method); listed {
			return template, ""
		}
	}
	return template, routepath.PreflightPattern(r, path)
}

// routerOf returns the router e routes r with.
func routerOf(e *echo.Echo, r *http.Request) *echo.Router {
	if rs := e.Routers(); len(rs) > 0 {
		if h, ok := rs[r.Host]; ok { // as echo picks the router
			return h
		}
	}
	return e.Router()
}

// find returns the template router finds for method and path, "" for none.
func find(e *echo.Echo, router *echo.Router, method, path string) string {
	c := e.AcquireContext()
	c.Reset(nil, nil)
	router.Find(method, path, c)
	p := c.Path()
	e.ReleaseContext(c)
	return p
}

// routes returns router's routes, each handler known by its name.
func routes(router *echo.Router) []routemethods.Route {
	var routes []routemethods.Route
	for _, r := range router.Routes() {
		if r.Method != echo.RouteNotFound {
			routes = append(routes, routemethods.Route{Method: r.Method, Template: r.Path, Handler: r.Name})
		}
	}
	return routes
}
