package keyfunc

import (
	"log/slog"
	"net/http"
	"net/netip"
)

// hintHeaders are the headers a proxy adds to name the client, in
// canonical form.
var hintHeaders = [...]string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"}

// hintUntrusted logs, once per extractor, that a request of r from peer,
// an address the extractor does not trust, carries a forwarding header
// while peer is a private, loopback or shared (100.64.0.0/10) address:
// the usual sign of a proxy (a load balancer, an ingress) in front of the
// application that nobody named. Every client behind it then shares the
// proxy's key, and one client's overuse refuses them all. The request is
// keyed by peer all the same (the header, which a client may write, is not
// read); the log only tells the operator why. Only requests of one
// connection in ten (those whose peer port ends in 0) are looked at, so
// that a private peer sending no such header pays the header lookups on
// one request in ten, every other request an atomic load and a byte: a
// proxy opens connections enough for one of them to be looked at soon.
func (c *ipExtractor) hintUntrusted(r *http.Request, peer netip.Addr) {
	if !c.hinted.Load() && sampled(r.RemoteAddr) {
		c.hintPeer(peer, r.Header)
	}
}

// sampled reports whether the connection of a request from addr is one
// hintUntrusted looks at: its port ends in 0.
func sampled(addr string) bool { return addr != "" && addr[len(addr)-1] == '0' }

// hintPeer is hintUntrusted until it has logged.
func (c *ipExtractor) hintPeer(peer netip.Addr, h http.Header) {
	if !peer.IsPrivate() && !peer.IsLoopback() && !shared.Contains(peer) {
		return
	}
	for _, name := range hintHeaders {
		if _, ok := h[name]; !ok || !c.hinted.CompareAndSwap(false, true) {
			continue
		}
		warn := c.warn
		if warn == nil {
			warn = slog.Warn
		}
		warn("keyfunc: a request from a private address that is not a trusted proxy carries a forwarding header; "+
			"if a proxy sent it, every client behind that proxy shares one key: key requests by keyfunc.ClientIP "+
			"with IPOptions.TrustedProxyCIDRs naming the proxy (or TrustedHops), the middleware's Options.Key. Logged once.",
			"peer", peer.String(), "header", name)
		return
	}
}

// shared is the shared address space of carrier-grade NAT (RFC 6598),
// which some platforms give their load balancers.
var shared = netip.MustParsePrefix("100.64.0.0/10")
