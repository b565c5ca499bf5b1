package middleware

import "net/http"

// Capture wraps w so that the status a handler writes through it can be
// reported to [Admission.End]: status returns the first final status
// written, 101 when the handler took the connection over (http.Hijacker,
// through http.ResponseController too), and 0 when it wrote nothing, which
// End never takes for a success. The wrapper unwraps for
// http.ResponseController and forwards Flush and Hijack. Router adapters
// over net/http use it when [Admission.Counting].
func Capture(w http.ResponseWriter) (cw http.ResponseWriter, status func() int) {
	sw := &statusWriter{ResponseWriter: w}
	return sw, sw.Status
}
