package keyfunc

import (
	"log/slog"
	"net/http"
	"net/netip"
)

// hintHeaders are the headers a proxy adds to name the client, in
// canonical form.
var hintHeaders = [...]string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"}

// hintUntrusted logs, once per extractor, that a request from peer, an
// address the extractor does not trust, carries a forwarding header while
// peer is a private or loopback address: the usual sign of a proxy (a
// load balancer, an ingress) in front of the application that nobody
// named. Every client behind it then shares the proxy's key, and one
// client's overuse refuses them all. The request is keyed by peer all the
// same (the header, which a client may write, is not read); the log only
// tells the operator why. A public peer, or one carrying no such header,
// costs an atomic load and a look at its address.
func (c *ipExtractor) hintUntrusted(peer netip.Addr, h http.Header) {
	if !c.hinted.Load() {
		c.hintPeer(peer, h)
	}
}

// hintPeer is hintUntrusted until it has logged.
func (c *ipExtractor) hintPeer(peer netip.Addr, h http.Header) {
	if !peer.IsPrivate() && !peer.IsLoopback() {
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
			"if a proxy sent it, every client behind that proxy shares one key: name the proxy in "+
			"IPOptions.TrustedProxyCIDRs (or TrustedHops). Logged once.",
			"peer", peer.String(), "header", name)
		return
	}
}
