package ginlimit

import (
	"bufio"
	"net"
	"net/http"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// count runs c's remaining handlers for a, an admission counting only
// some statuses (Options.CountIf), and ends it with the status they wrote
// or set: 101 for a connection taken over, 0 (no response) for one left
// unwritten at gin's default 200, which End never takes for a success.
// Errors recorded with c.Error on such a response are answered by a
// middleware outside Limit, after it returns: the writer then stays c's
// and ends a with the status that middleware writes through it; none
// written, a stays counted. A panic leaves a counted.
func count(c *gin.Context, a *middleware.Admission) {
	cw := &countWriter{ResponseWriter: c.Writer}
	c.Writer = cw
	returned := false
	defer func() {
		if !returned {
			c.Writer = cw.ResponseWriter
		}
	}()
	c.Next()
	returned = true
	switch {
	case cw.hijacked:
		a.End(c.Request.Context(), http.StatusSwitchingProtocols)
	case cw.Written() || cw.Status() != http.StatusOK:
		a.End(c.Request.Context(), cw.Status())
	case len(c.Errors) > 0:
		// Judged when the middleware outside writes its answer (a copy:
		// a stays on Limit's stack; only this one is ever ended).
		later := new(middleware.Admission)
		*later = *a
		cw.later, cw.r = later, c.Request
		return
	default:
		a.End(c.Request.Context(), 0)
	}
	c.Writer = cw.ResponseWriter
}

// countWriter notes whether a handler took the connection over and, once
// the handlers have run leaving errors to answer (later set), ends the
// admission with the status of the first response sent through it.
type countWriter struct {
	gin.ResponseWriter
	hijacked bool
	later    *middleware.Admission
	r        *http.Request // the request ended later, for its context
}

// send ends the pending admission, if any, with the status about to be
// sent.
func (w *countWriter) send() {
	if a := w.later; a != nil && !w.ResponseWriter.Written() {
		w.later = nil
		a.End(w.r.Context(), w.ResponseWriter.Status())
	}
}

func (w *countWriter) WriteHeaderNow() {
	w.send()
	w.ResponseWriter.WriteHeaderNow()
}

func (w *countWriter) Write(b []byte) (int, error) {
	w.send()
	return w.ResponseWriter.Write(b)
}

func (w *countWriter) WriteString(s string) (int, error) {
	w.send()
	return w.ResponseWriter.WriteString(s)
}

func (w *countWriter) Flush() {
	w.send()
	w.ResponseWriter.Flush()
}

// Hijack takes the connection, noting it: no status tells the outcome,
// and a pending admission stays counted.
func (w *countWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := w.ResponseWriter.Hijack()
	if err == nil {
		w.hijacked, w.later = true, nil
	}
	return c, rw, err
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *countWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
