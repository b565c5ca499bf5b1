package keyfunc

import (
	"fmt"
	"net/http"
)

// Route is a Func that keys a request by the pattern of the [http.ServeMux]
// route that matched it, r.Pattern, such as "GET /items/{id}". The pattern is
// set when the mux dispatches, so Route sees it in a handler registered on
// the mux, and in middleware.Middleware.Handler wrapping the mux itself
// (which sets it before deciding), not in other middleware wrapping the
// mux. A request without a pattern gives an error wrapping [ErrNoKey].
func Route(r *http.Request) (string, error) {
	if r.Pattern == "" {
		return "", fmt.Errorf("keyfunc: request has no route pattern: %w", ErrNoKey)
	}
	return r.Pattern, nil
}

// Method is a Func that keys a request by its method, r.Method: each of
// the methods of RFC 9110 and PATCH as it is written (methods are
// case-sensitive), HEAD as GET (ServeMux serves HEAD with GET's handler),
// and every other token (PROPFIND, "get", "X1") as one key, "(other)",
// which no method can be. The client writes the method, any token it
// likes, and a handler registered without a method serves them all: keyed
// by each token, one client had a bucket of its own for every token it
// made up. Even so, such a handler is reached with up to nine keys of
// Method: combine Method with other keys (see [Join]) rather than limit by
// it alone, and leave it out of the keys of routes that serve every
// method. An empty method gives an error wrapping [ErrNoKey].
func Method(r *http.Request) (string, error) {
	switch m := r.Method; m {
	case "":
		return "", fmt.Errorf("keyfunc: request has no method: %w", ErrNoKey)
	case http.MethodHead:
		return http.MethodGet, nil
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodTrace, http.MethodConnect:
		return m, nil
	}
	return otherMethod, nil
}

// otherMethod is Method's key of every method it does not name: it holds
// parentheses, which no method token does.
const otherMethod = "(other)"

// Const returns a Func that keys every request by s, for a limit shared by all
// requests.
//
// Const panics if s is empty.
func Const(s string) Func {
	if s == "" {
		panic(fmt.Errorf("keyfunc: Const: empty key: %w", ErrInvalidOptions))
	}
	return func(*http.Request) (string, error) { return s, nil }
}
