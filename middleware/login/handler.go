package login

import (
	"errors"
	"net/http"
	"net/url"
)

// ErrNoResponse is reported to Options.OnError when the login handler
// returned without writing a response: the guard cannot tell the outcome
// and counts the attempt as failed. This is what happens when a router
// writes the status after the guard's middleware has returned (echo's
// WrapMiddleware with a handler returning an error, gin's c.Error): use
// the router's own login helper (adapters/echolimit.Login,
// adapters/ginlimit.Login), or write the status in the handler.
var ErrNoResponse = errors.New("login: the handler returned without writing a response; the attempt counts as failed")

// Handler wraps next, the login handler: for every request but GET, HEAD and
// OPTIONS (which pass through uncounted unless their URL names a username) it
// reads the username from the body (see [Options]; the body is given back to
// next unread), counts a failed attempt with [Guard.Begin], runs next, and
// learns the outcome from the status next writes: when it is a success
// (Options.Succeeded) the attempt is refunded and, with Options.Devices, a
// device cookie is added to the response before its headers are sent.
//
// A handler that returns without writing anything (not even a body, which
// would mean 200) leaves the attempt counted as failed, and
// [ErrNoResponse] is reported to Options.OnError: the guard never guesses
// a success. A handler that panics leaves it counted as failed too.
//
// It answers itself, without running next: 429 ([WriteThrottled]) when the
// attempt is throttled; 413 for a body over Options.MaxBody; 415 for a body
// that is neither a form nor JSON, or has a Content-Encoding (gzip, ...:
// a layer after the guard that decodes it would give the handler another
// username than the guard counted); 400 for an unparseable body, a form
// body that is a JSON document (a handler decoding JSON whatever the
// Content-Type would read another username), a
// missing, repeated or too long username, or a username in the URL's query
// (whatever the method: a handler reading r.FormValue would check
// credentials the guard never counted) or a GET, HEAD or OPTIONS with a
// body; 503 when the store fails or the
// client network cannot be found.
//
// The guard counts the username of the body (Options.Field) only. A
// handler that checks credentials from elsewhere (an Authorization header
// with HTTP Basic credentials, a header of its own) checks guesses the
// guard never counted, on GET, HEAD and OPTIONS too: such a handler must
// take the username from the body, or call [Guard.Begin] itself with the
// username it really checks.
//
// It panics, when the handler chain is built, if g is nil or not made by
// [New] (see [Guard.Validate]), or if next is nil or a typed nil.
func (g *Guard) Handler(next http.Handler) http.Handler {
	g.mustValidate()
	mustNext(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := g.Start(w, r)
		if !ok {
			return
		}
		if a == nil { // GET, HEAD or OPTIONS without credentials
			next.ServeHTTP(w, r)
			return
		}
		ow := &outcomeWriter{ResponseWriter: w, a: a}
		returned := false
		defer func() {
			switch {
			case ow.wrote:
			case returned: // a router that writes the status later
				a.Unanswered(r)
			default: // a panic
				a.Failed()
			}
		}()
		next.ServeHTTP(ow, r)
		returned = true
	})
}

// Start is the first half of [Guard.Handler], for router adapters: it
// refuses a request whose URL query names a username (Options.Field, in
// any case), whatever its method; it lets GET, HEAD and OPTIONS without a
// body through uncounted, returning a nil Attempt and true, and refuses
// them with one (a handler decoding the body whatever the method would
// check credentials the guard never counted); for any other method it
// reads the username from r's body (the body is given back unread), and
// begins the attempt with [Guard.Begin]. When it returns false it has
// written the whole answer (429, 413, 415, 400 or 503) and the login
// handler must not run. When it returns true the handler may run, and a
// non-nil attempt's outcome must be reported with [Attempt.Respond] before
// the response's headers are sent. A nil or zero g (see [Guard.Validate])
// answers every request 500 and returns false.
func (g *Guard) Start(w http.ResponseWriter, r *http.Request) (*Attempt, bool) {
	if g.Validate() != nil {
		writeError(w, r, http.StatusInternalServerError, "the login guard is not configured")
		return nil, false
	}
	if inQuery(r, g.field) {
		writeError(w, r, http.StatusBadRequest, "credentials are not accepted in the URL")
		return nil, false
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if hasBody(r) {
			writeError(w, r, http.StatusBadRequest, "a "+r.Method+" login request has no body")
			return nil, false
		}
		return nil, true
	}
	name, err := readUsername(r, g.field, g.maxBody)
	switch {
	case errors.Is(err, errBodyTooLarge):
		writeError(w, r, http.StatusRequestEntityTooLarge, "the request body is too large")
		return nil, false
	case errors.Is(err, errUnsupportedMedia):
		writeError(w, r, http.StatusUnsupportedMediaType, "send a form or a JSON object")
		return nil, false
	case errors.Is(err, errEncodedBody):
		writeError(w, r, http.StatusUnsupportedMediaType, "send the body without a Content-Encoding")
		return nil, false
	case err != nil:
		writeError(w, r, http.StatusBadRequest, "the request body cannot be parsed")
		return nil, false
	}
	a, err := g.Begin(r.Context(), name, r)
	var te *ThrottledError
	switch {
	case errors.As(err, &te):
		writeThrottled(w, r, te.RetryAfter)
		return nil, false
	case errors.Is(err, ErrNoUsername):
		writeError(w, r, http.StatusBadRequest, "the username is missing")
		return nil, false
	case errors.Is(err, ErrUsernameTooLong):
		writeError(w, r, http.StatusBadRequest, "the username is too long")
		return nil, false
	case err != nil:
		g.report(r, err)
		writeError(w, r, http.StatusServiceUnavailable, "login attempts cannot be counted")
		return nil, false
	}
	return a, true
}

// Unanswered reports that the login handler returned without writing a
// response: the attempt counts as failed ([Attempt.Failed]) and
// [ErrNoResponse] is reported to Options.OnError with r, unless the attempt
// was already reported.
func (a *Attempt) Unanswered(r *http.Request) {
	if a == nil || a.g == nil {
		return
	}
	a.once.Do(func() {
		a.g.report(r, ErrNoResponse)
		a.fail()
	})
}

// outcomeWriter reports the attempt's outcome with the first final status
// written through it, before the headers are sent, so that a device cookie
// can still be added. It unwraps for http.ResponseController.
type outcomeWriter struct {
	http.ResponseWriter
	a     *Attempt
	wrote bool
}

func (w *outcomeWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.wrote = true
		w.a.Respond(w.Header(), code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *outcomeWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher: see FlushError.
func (w *outcomeWriter) Flush() { _ = w.FlushError() }

// FlushError sends the status (200 when none was written: the outcome is
// told then) and flushes the underlying writer through
// http.ResponseController, so that writers which only unwrap (a logger's)
// are flushed too; it returns the flush's error (http.ErrNotSupported when
// nothing under it can flush).
func (w *outcomeWriter) FlushError() error {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *outcomeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// inQuery reports whether r's URL query has a parameter named field, in
// any case and spelling a binder takes for it (see foldName): a handler
// reading r.FormValue or a router's binding would take a username from
// there, so the guard accepts none there. Parameters after a malformed one
// count too, as url.ParseQuery keeps them.
func inQuery(r *http.Request, field string) bool {
	if r.URL == nil || r.URL.RawQuery == "" {
		return false
	}
	vals, _ := url.ParseQuery(r.URL.RawQuery)
	folded := foldName(field)
	for k := range vals {
		if foldName(k) == folded {
			return true
		}
	}
	return false
}

// hasBody reports whether r may carry a body: a Content-Length other than
// 0 (-1 is unknown: chunked, or an HTTP/2 stream left open without one).
// The Body itself says nothing: an HTTP/2 server gives a request without a
// body a Body that is not http.NoBody.
func hasBody(r *http.Request) bool { return r.ContentLength != 0 }
