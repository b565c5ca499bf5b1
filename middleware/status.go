package middleware

import (
	"bufio"
	"net"
	"net/http"
)

// statusWriter records the status of a response for Options.CountIf. It
// unwraps for http.ResponseController, so flushing and deadlines still
// reach the underlying writer.
type statusWriter struct {
	http.ResponseWriter
	status int // the final status written; 0 until one is
}

// WriteHeader records the first final status: 200 and above, or 101
// (which net/http sends as final). Informational statuses are not.
func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Flush implements http.Flusher: see FlushError.
func (s *statusWriter) Flush() { _ = s.FlushError() }

// FlushError flushes the underlying writer through http.ResponseController,
// so that writers which only unwrap (a logger's mounted before the
// middleware) are flushed too, and returns its error (http.ErrNotSupported
// when nothing under it can flush). A flush that sent the response records
// 200 when no status was written; one that failed records nothing: the
// status written later is the one the client gets.
func (s *statusWriter) FlushError() error {
	err := http.NewResponseController(s.ResponseWriter).Flush()
	if err == nil && s.status == 0 {
		s.status = http.StatusOK
	}
	return err
}

// Hijack implements http.Hijacker (through http.ResponseController, so it
// fails with http.ErrNotSupported where the underlying writer cannot): a
// connection taken over is recorded as 101, a status Options.CountIf is
// never asked about.
func (s *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(s.ResponseWriter).Hijack()
	if err == nil && s.status == 0 {
		s.status = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Status returns the response's final status: 0 when the handler wrote
// nothing (see [Admission.End]).
func (s *statusWriter) Status() int { return s.status }
