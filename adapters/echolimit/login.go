package echolimit

import (
	"fmt"

	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/labstack/echo/v4"
)

// Login returns echo middleware guarding a login route with g: it does
// what [login.Guard.Handler] does, but learns the outcome the echo way.
// Mount it on the login route (e.POST("/login", h, echolimit.Login(g))).
//
// A handler may fail by returning an error (echo.NewHTTPError(401), or
// any error): Login hands it to echo's HTTPErrorHandler at once, so that
// the status written is the one judged, and returns nil. The outcome is
// judged from the status when the response's headers are written (so a
// device cookie can still be added to a success, with
// login.Options.Devices); a handler that returns nil without writing
// anything counts as a failure and is reported to login.Options.OnError
// ([login.ErrNoResponse]). GET, HEAD and OPTIONS pass through uncounted unless
// their URL query names a username (see login.Guard.Start).
//
// Do not mount g.Handler with echo.WrapMiddleware: echo writes a returned
// error's status only after that middleware has returned. The guard then
// sees no response, counts every such attempt as failed (successes written
// by the handler are still refunded) and reports [login.ErrNoResponse] to
// login.Options.OnError on each: it throttles, loudly, but Login is the
// way that sees every outcome.
//
// It panics, when the server is built, if g is nil or not made by
// login.New (see login.Guard.Validate).
func Login(g *login.Guard) echo.MiddlewareFunc {
	if err := g.Validate(); err != nil {
		panic(fmt.Errorf("echolimit: Login: %w", err))
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			res := c.Response()
			a, ok := g.Start(res, r)
			if !ok {
				return nil
			}
			if a == nil { // GET, HEAD or OPTIONS without credentials
				return next(c)
			}
			res.Before(func() {
				if res.Status >= 200 {
					a.Respond(res.Header(), res.Status)
				}
			})
			returned := false
			defer func() {
				if !returned {
					a.Failed() // a panic
				}
			}()
			err := next(c)
			returned = true
			if err != nil {
				c.Error(err)
			}
			if !res.Committed {
				a.Unanswered(c.Request())
			}
			return nil
		}
	}
}
