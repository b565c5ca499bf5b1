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
// its path names as well, all or nothing.
func ServeVariants(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), variantsServedKey{}, true))
}

// VariantsServed reports whether r was marked by [ServeVariants].
func VariantsServed(r *http.Request) bool {
	v, _ := r.Context().Value(variantsServedKey{}).(bool)
	return v
}
