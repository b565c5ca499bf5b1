package ginlimit

import (
	"bufio"
	"fmt"
	"net"
	"net/http"

	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/gin-gonic/gin"
)

// Login returns a gin handler guarding a login route with g: it does what
// [login.Guard.Handler] does, but learns the outcome the gin way. Mount it
// before the login handler (engine.POST("/login", ginlimit.Login(g), h)).
// A request g refuses is answered by g and aborted.
//
// The outcome is judged from the status when the response's headers are
// about to be sent, however the handler sends them (c.JSON, c.String,
// c.AbortWithStatus, c.Redirect, a write), so that a device cookie can
// still be added to a success (login.Options.Devices). A handler that
// sends nothing is judged when it returns: a status set without a body
// (c.Status(401)) is that status; a response left at gin's default 200
// (typically with an error recorded by c.Error, for an error-handling
// middleware outside to answer) counts as a failure and is reported to
// login.Options.OnError ([login.ErrNoResponse]): the guard never guesses a
// success. GET, HEAD and OPTIONS pass through uncounted unless
// their URL query names a username (see login.Guard.Start).
//
// It panics, when the engine is built, if g is nil or not made by
// login.New (see login.Guard.Validate).
func Login(g *login.Guard) gin.HandlerFunc {
	if err := g.Validate(); err != nil {
		panic(fmt.Errorf("ginlimit: Login: %w", err))
	}
	return func(c *gin.Context) {
		a, ok := g.Start(c.Writer, c.Request)
		if !ok {
			c.Abort()
			return
		}
		if a == nil { // GET, HEAD or OPTIONS without credentials
			c.Next()
			return
		}
		ow := &outcomeWriter{ResponseWriter: c.Writer, a: a}
		c.Writer = ow
		returned := false
		defer func() {
			c.Writer = ow.ResponseWriter
			switch {
			case ow.sent:
			case !returned: // a panic
				a.Failed()
			case ow.Written() || ow.Status() != http.StatusOK:
				a.Respond(ow.Header(), ow.Status())
			default:
				a.Unanswered(c.Request)
			}
		}()
		c.Next()
		returned = true
	}
}

// outcomeWriter reports the attempt's outcome before the headers are
// sent, when the status is known and a cookie can still be added.
type outcomeWriter struct {
	gin.ResponseWriter
	a    *login.Attempt
	sent bool
}

func (w *outcomeWriter) before() {
	if !w.sent && !w.ResponseWriter.Written() {
		w.sent = true
		w.a.Respond(w.Header(), w.Status())
	}
}

func (w *outcomeWriter) WriteHeaderNow() {
	w.before()
	w.ResponseWriter.WriteHeaderNow()
}

func (w *outcomeWriter) Write(b []byte) (int, error) {
	w.before()
	return w.ResponseWriter.Write(b)
}

func (w *outcomeWriter) WriteString(s string) (int, error) {
	w.before()
	return w.ResponseWriter.WriteString(s)
}

func (w *outcomeWriter) Flush() {
	w.before()
	w.ResponseWriter.Flush()
}

// Hijack takes the connection: no status will tell the outcome, so the
// attempt counts as failed.
func (w *outcomeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if !w.sent {
		w.sent = true
		w.a.Failed()
	}
	return w.ResponseWriter.Hijack()
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *outcomeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
