package echolimit

import (
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/labstack/echo/v4"
)

// RealIP returns a keyfunc.Func, for Options.Key, that keys a request by
// e's idea of the client, echo's Context.RealIP, masked like
// keyfunc.ClientIP's default (/32 for IPv4, /64 for IPv6). It is an
// opt-in: set e.IPExtractor first (echo.ExtractIPFromXFFHeader with
// echo.TrustIPRange, say), since without one echo believes the first
// X-Forwarded-For entry of any request. It panics on a nil e.
func RealIP(e *echo.Echo) keyfunc.Func {
	if e == nil {
		panic(fmt.Errorf("echolimit: RealIP: nil server: %w", core.ErrInvalidConfig))
	}
	return func(r *http.Request) (string, error) {
		var s string
		if e.IPExtractor != nil {
			s = e.IPExtractor(r)
		} else {
			s = e.NewContext(r, nil).RealIP()
		}
		return keyfunc.AddrKey(s)
	}
}
