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

// Method is a Func that keys a request by its method, r.Method. The client
// chooses the method, any token it likes: combine Method with other keys
// (see [Join]) rather than limit by it alone. An empty method gives an error
// wrapping [ErrNoKey].
func Method(r *http.Request) (string, error) {
	if r.Method == "" {
		return "", fmt.Errorf("keyfunc: request has no method: %w", ErrNoKey)
	}
	return r.Method, nil
}

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
