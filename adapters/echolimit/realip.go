package echolimit

import (
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/labstack/echo/v4"
)

// RealIP returns a keyfunc.Func, for Options.Key, that keys a request by
// the client e.IPExtractor finds (echo.ExtractIPFromXFFHeader with
// echo.TrustIPRange, say), masked like keyfunc.ClientIP's default (/32 for
// IPv4, /64 for IPv6). It is an opt-in, for a server whose IPExtractor
// already names the client for the rest of the application.
//
// While e.IPExtractor is nil it keys by RemoteAddr, as [PerIP] does, and
// not by echo's legacy Context.RealIP, which believes the X-Forwarded-For
// or X-Real-IP of any request: there, a client writing a new address each
// time would have a fresh budget per request, and one writing a victim's
// address would spend the victim's. The extractor is read at each
// request, so it may be set after RealIP is called. It panics on a nil e.
func RealIP(e *echo.Echo) keyfunc.Func {
	if e == nil {
		panic(fmt.Errorf("echolimit: RealIP: nil server: %w", core.ErrInvalidConfig))
	}
	return func(r *http.Request) (string, error) {
		if e.IPExtractor == nil {
			return direct(r)
		}
		return keyfunc.AddrKey(e.IPExtractor(r))
	}
}

// direct is the key of RealIP on a server without an IPExtractor: the
// client IP from RemoteAddr, PerIP's key.
var direct, _ = keyfunc.ClientIP(keyfunc.IPOptions{}) // zero options are valid
