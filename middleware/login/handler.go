package login

import (
	"errors"
	"net/http"

	"github.com/floodgate-go/floodgate/middleware"
)

// Handler wraps next, the login handler: for every request but GET, HEAD
// and OPTIONS (which pass through uncounted) it reads the username from the
// body (see [Options]; the body is given back to next unread), counts a
// failed attempt with [Guard.Begin], runs next, and refunds the attempt
// when the response status is a success (Options.Succeeded).
//
// It answers itself, without running next: 429 ([WriteThrottled]) when the
// attempt is throttled; 413 for a body over Options.MaxBody; 415 for a body
// that is neither a form nor JSON; 400 for an unparseable body or a missing
// or repeated username; 503 when the store fails or the client network
// cannot be found.
func (g *Guard) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		name, err := readUsername(r, g.field, g.maxBody)
		switch {
		case errors.Is(err, ErrBodyTooLarge):
			writeError(w, http.StatusRequestEntityTooLarge, "the request body is too large")
			return
		case errors.Is(err, ErrUnsupportedMedia):
			writeError(w, http.StatusUnsupportedMediaType, "send a form or a JSON object")
			return
		case err != nil:
			writeError(w, http.StatusBadRequest, "the request body cannot be parsed")
			return
		}
		a, err := g.Begin(r.Context(), name, r)
		var te *ThrottledError
		switch {
		case errors.As(err, &te):
			WriteThrottled(w, te.RetryAfter)
			return
		case errors.Is(err, ErrNoUsername):
			writeError(w, http.StatusBadRequest, "the username is missing")
			return
		case err != nil:
			g.report(r, err)
			writeError(w, http.StatusServiceUnavailable, "login attempts cannot be counted")
			return
		}
		cw, status := middleware.Capture(w)
		done := false
		defer func() {
			// A panicking handler leaves the attempt counted as failed.
			if done && g.ok(status()) {
				a.Succeeded()
			} else {
				a.Failed()
			}
		}()
		next.ServeHTTP(cw, r)
		done = true
	})
}
