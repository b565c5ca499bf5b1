package ginlimit

import (
	"fmt"
	"net/http"
	"net/netip"

	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/gin-gonic/gin"
)

// ClientIP returns a keyfunc.Func, for Options.Key, that keys a request by
// engine's idea of the client, gin's Context.ClientIP, masked like
// keyfunc.ClientIP's default (/32 for IPv4, /64 for IPv6). It is an
// opt-in: gin trusts forwarding headers from every peer until
// engine.SetTrustedProxies (or TrustedPlatform) restricts them, so call
// that first. Each call builds a gin context, which allocates; prefer
// keyfunc.ClientIP with IPOptions.TrustedProxies when you can.
func ClientIP(engine *gin.Engine) keyfunc.Func {
	return func(r *http.Request) (string, error) {
		c := gin.CreateTestContextOnly(nil, engine)
		c.Request = r
		return prefixKey(c.ClientIP())
	}
}

// prefixKey turns an address into the key keyfunc.ClientIP would give it.
func prefixKey(s string) (string, error) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return "", fmt.Errorf("ginlimit: client address %q: %w", s, keyfunc.ErrNoKey)
	}
	a = a.Unmap()
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, _ := a.Prefix(bits)
	return p.String(), nil
}
