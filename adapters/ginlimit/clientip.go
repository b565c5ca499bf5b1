package ginlimit

import (
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/gin-gonic/gin"
)

// ClientIP returns a keyfunc.Func, for Options.Key, that keys a request by
// engine's idea of the client, gin's Context.ClientIP, masked like
// keyfunc.ClientIP's default (/32 for IPv4, /64 for IPv6). It is an
// opt-in: gin trusts forwarding headers from every peer until
// engine.SetTrustedProxies (or TrustedPlatform) restricts them, so call
// that first. Each call builds a gin context, which allocates; prefer
// keyfunc.ClientIP with IPOptions.TrustedProxies when you can. It panics
// on a nil engine.
func ClientIP(engine *gin.Engine) keyfunc.Func {
	if engine == nil {
		panic(fmt.Errorf("ginlimit: ClientIP: nil engine: %w", core.ErrInvalidConfig))
	}
	return func(r *http.Request) (string, error) {
		c := gin.CreateTestContextOnly(nil, engine)
		c.Request = r
		return keyfunc.AddrKey(c.ClientIP())
	}
}
