package chilimit

import (
	"reflect"

	"github.com/go-chi/chi/v5"
)

// routeParamsField is the index of chi.Context's routeParams field (the
// parameters of the route the last router matched, which chi's mount
// handler reads the sub-router's path from), -1 if chi has none of that
// type.
var routeParamsField = func() int {
	f, ok := reflect.TypeFor[chi.Context]().FieldByName("routeParams")
	if !ok || len(f.Index) != 1 || f.Type != reflect.TypeFor[chi.RouteParams]() {
		return -1
	}
	return f.Index[0]
}()

// nextRoutePath returns the path chi's mount handler routes a request
// with in the sub-router mounted where the last router routed it, as
// chi's Mux.nextRoutePath computes it: "/" and the rest the mount point's
// catch-all matched, "/" for none. It reads the routing parameters of the
// last match, which the mount handler leaves as they are (it resets only
// the URL parameter), so that it gives one answer inline on the mount
// point, before the handler has run, and in the sub-router's Use, after.
// ok is false when the chi in use keeps them elsewhere.
func nextRoutePath(rctx *chi.Context) (path string, ok bool) {
	if routeParamsField < 0 || rctx == nil {
		return "", false
	}
	rp := reflect.ValueOf(rctx).Elem().Field(routeParamsField)
	keys, values := rp.FieldByName("Keys"), rp.FieldByName("Values")
	n := keys.Len() - 1
	if n >= 0 && keys.Index(n).String() == "*" && values.Len() > n {
		return "/" + values.Index(n).String(), true
	}
	return "/", true
}
