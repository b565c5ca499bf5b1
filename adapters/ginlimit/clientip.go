package ginlimit

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/gin-gonic/gin"
)

// ClientIP returns a keyfunc.Func, for Options.Key, that keys a request by
// engine's idea of the client, gin's Context.ClientIP, masked like
// keyfunc.ClientIP's default (/32 for IPv4, /64 for IPv6). It is an
// opt-in, for an engine whose SetTrustedProxies (or TrustedPlatform)
// already names the client for the rest of the application.
//
// While engine trusts every peer (gin's default until SetTrustedProxies),
// the forwarding headers of RemoteIPHeaders are not believed and the
// client is RemoteAddr, as in [PerIP]: gin would take the left-most
// X-Forwarded-For entry, which any client writes, so that a client writing
// a new address each time would have a fresh budget per request, and one
// writing a victim's address would spend the victim's. Trusting every
// peer is told by asking gin about a peer that no proxy has (0.0.0.1, or
// 100::1 for an IPv6 peer; an IPv4-mapped peer is an IPv4 one to gin):
// a configuration trusting it trusts networks wider than any proxy's. A
// peer on a Unix socket, which gin trusts whatever the proxies, is keyed
// as in PerIP (it has no address: an error wrapping keyfunc.ErrNoKey)
// when gin trusts every address of either family, since gin then walks
// past the entry its proxy wrote to the one a client wrote. The header of
// TrustedPlatform, which gin takes from every peer by design, is believed
// whatever the trust. A peer whose address gin can't read, such as a
// link-local one with its zone ("[fe80::1%eth0]:1234"), for which gin
// reads no header and names no client, is keyed as in PerIP: by its link
// (see keyfunc.ClientIP); behind a link-local proxy, every client then
// shares the proxy's key, as with keyfunc.ClientIP, which trusts no
// link-local peer (any host may take a proxy's address on another link):
// give the proxy another address.
//
// Each call builds a gin context, which allocates; prefer
// keyfunc.ClientIP with IPOptions.TrustedProxies when you can. It panics
// on a nil engine.
func ClientIP(engine *gin.Engine) keyfunc.Func {
	if engine == nil {
		panic(fmt.Errorf("ginlimit: ClientIP: nil engine: %w", core.ErrInvalidConfig))
	}
	var cache atomic.Pointer[probes] // the probes of the engine's RemoteIPHeaders
	return func(r *http.Request) (string, error) {
		c := gin.CreateTestContextOnly(nil, engine)
		c.Request = r
		ip := c.ClientIP()
		if ip == "" {
			// gin could not read the peer's address (net.ParseIP
			// refuses a link-local peer's zone, "fe80::1%eth0") and
			// read no header: the client is RemoteAddr, as in PerIP.
			return direct(r)
		}
		if peer := c.RemoteIP(); ip != peer && ip != "" && !fromPlatform(engine, r) && trustsAnyPeer(c, engine, &cache, peer) {
			return direct(r)
		}
		return keyfunc.AddrKey(ip)
	}
}

// direct is ClientIP's key when engine trusts every peer: the client IP
// from RemoteAddr, PerIP's key.
var direct, _ = keyfunc.ClientIP(keyfunc.IPOptions{}) // zero options are valid

// fromPlatform reports whether gin's ClientIP answers r with the header of
// engine's platform (TrustedPlatform, or App Engine's legacy flag), which
// it takes before any other and from every peer.
func fromPlatform(engine *gin.Engine, r *http.Request) bool {
	return engine.TrustedPlatform != "" && r.Header.Get(engine.TrustedPlatform) != "" ||
		engine.AppEngine && r.Header.Get("X-Appengine-Remote-Addr") != ""
}

// trustsAnyPeer reports whether engine takes its RemoteIPHeaders from a
// peer that no proxy has, of the family gin checks peer as (an
// IPv4-mapped peer is an IPv4 one to gin): a request from 0.0.0.1 (100::1,
// of the discard-only prefix, for IPv6) naming another such address in
// each of them is asked of c. A peer without an address (gin trusts a Unix
// socket's whatever the proxies) is asked of both families: the entry
// gin then walks past, to the one a client writes, may be of either.
func trustsAnyPeer(c *gin.Context, engine *gin.Engine, cache *atomic.Pointer[probes], peer string) bool {
	p := cache.Load()
	if p == nil || !slices.Equal(p.names, engine.RemoteIPHeaders) {
		p = newProbes(engine.RemoteIPHeaders)
		cache.Store(p)
	}
	a, err := netip.ParseAddr(peer)
	if err != nil {
		return p.trusted(c, false) || p.trusted(c, true)
	}
	return p.trusted(c, !a.Unmap().Is4())
}

// probes are the requests trustsAnyPeer asks gin about, from 0.0.0.1 and
// from 100::1, each naming 0.0.0.2 (100::2) in every header of names, the
// engine's RemoteIPHeaders when they were made. They are made once for
// those names, not at each request (gin only reads them), and shared.
type probes struct {
	names []string
	req   [2]*http.Request // IPv4, IPv6
}

// probeClient is the client each probe names, by family.
var probeClient = [2]string{"0.0.0.2", "100::2"}

func newProbes(names []string) *probes {
	p := &probes{names: slices.Clone(names)}
	for i, remote := range [2]string{"0.0.0.1:1", "[100::1]:1"} {
		req := &http.Request{RemoteAddr: remote, Header: http.Header{}}
		for _, h := range names {
			req.Header.Set(h, probeClient[i])
		}
		p.req[i] = req
	}
	return p
}

// trusted reports whether gin, asked by c, believes the headers of the
// probe of the family v6 says.
func (p *probes) trusted(c *gin.Context, v6 bool) bool {
	i := 0
	if v6 {
		i = 1
	}
	c.Request = p.req[i]
	return c.ClientIP() == probeClient[i]
}
