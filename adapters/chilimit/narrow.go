package chilimit

import (
	"net/http"
	"strings"
	"sync"

	"github.com/floodgate-go/floodgate/internal/routemethods"
	"github.com/go-chi/chi/v5"
)

// everyMethod lists net/http's methods, which chi routes: those reaching
// a handler whose router the root cannot list.
const everyMethod = "CONNECT,DELETE,GET,HEAD,OPTIONS,PATCH,POST,PUT,TRACE"

// everyMethodWith returns everyMethod with method, r's, added when it is
// not net/http's: chi routes a method registered with chi.RegisterMethod
// to a handler of every method as it routes GET, and such a request
// reaching a handler whose router the root cannot list was limited by
// none of the routes guarding it.
func everyMethodWith(method string) string {
	if method == "" || routemethods.Standard(method) || strings.ContainsAny(method, ", ") {
		return everyMethod
	}
	return everyMethod + "," + method
}

// narrow returns methods, the methods reaching the handler r reaches at
// pattern (see routemethods), with only those by which router, the root
// router, routes r's path to pattern too: method, r's, and the others
// whose Find names pattern. A pattern with parameters or a catch-all
// ("/api/*") holds paths chi routes by another method to a route of their
// own (r.Post("/api/login", …) beside r.Handle("/api/*", h)): that route
// guards another handler than the one a GET reaches (see
// routemethods.Narrow).
func narrow(router chi.Routes, pool *sync.Pool, r *http.Request, st stubs, pattern, methods, method string) string {
	if methods == "" || !strings.ContainsAny(pattern, "{*") {
		return methods
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	rctx := pool.Get().(*chi.Context)
	defer pool.Put(rctx)
	return routemethods.Narrow(methods, method, func(m string) bool {
		p, _ := findMethods(router, rctx, [2]string{m}, path, st)
		return p == pattern
	})
}
