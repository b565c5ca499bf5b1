package routepath

import (
	"context"
	"net/http"
)

// variantsServedKey marks a request's context: see [ServeVariants].
type variantsServedKey struct{}

// ServeVariants returns a shallow copy of r marked as reaching, by its
// route template, a handler that the [Variants] of its path may reach
// too: a sub-router's "/" route, which chi serves at its mount point
// with and without the trailing slash ("/b", "/b/"), or a route behind a
// sub-router's middleware, which may rewrite the path (CleanPath,
// StripSlashes) after the limiter has found the route the path names as
// it comes. A router adapter marks the request it asks the middleware to
// decide; middleware.Routes then charges it on the route a variant of
// its path names as well, all or nothing, a variant under the literal
// start of the template (see [ServeRewritten] for any).
func ServeVariants(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), variantsServedKey{}, false))
}

// ServeRewritten is [ServeVariants] for a request that a middleware after
// the limiter, in the root router's own Use (chi's CleanPath,
// StripSlashes), may route anywhere by a variant of its path: a cleaned
// path leaves the template's literal start ("/a/b/../admin", found as
// "/a/{x}/{y}/{z}", is routed as "/admin").
func ServeRewritten(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), variantsServedKey{}, true))
}

// VariantsServed reports whether r was marked by [ServeVariants] or
// [ServeRewritten], and, anywhere, by the latter.
func VariantsServed(r *http.Request) (served, anywhere bool) {
	anywhere, served = r.Context().Value(variantsServedKey{}).(bool)
	return served, anywhere
}
