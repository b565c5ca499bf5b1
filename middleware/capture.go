package middleware

import "net/http"

// Capture wraps w so that the status a handler writes through it can be
// reported to [Admission.End]; status returns that status, 200 when the
// handler wrote nothing. The wrapper unwraps for http.ResponseController
// and forwards Flush. Router adapters over net/http use it when
// [Admission.Counting].
func Capture(w http.ResponseWriter) (cw http.ResponseWriter, status func() int) {
	sw := &statusWriter{ResponseWriter: w}
	return sw, sw.Status
}
