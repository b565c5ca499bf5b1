package keyfunc

import (
	"fmt"
	"iter"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/internal/httpsyntax"
)

// Source selects the list header a [ClientIP] extractor walks when the direct
// peer is a trusted proxy.
type Source int

const (
	// SourceXForwardedFor walks X-Forwarded-For. It is the zero value and
	// so the default.
	SourceXForwardedFor Source = iota
	// SourceForwarded walks the for= parameters of the RFC 7239 Forwarded
	// header.
	SourceForwarded
	// SourceNone walks no list header: only the headers named in
	// [IPOptions.Headers] are read. With trusted proxies or hops it needs
	// at least one such header.
	SourceNone
)

// String returns the name of the header s walks, or "none".
func (s Source) String() string {
	switch s {
	case SourceXForwardedFor:
		return "X-Forwarded-For"
	case SourceForwarded:
		return "Forwarded"
	case SourceNone:
		return "none"
	}
	return "Source(" + strconv.Itoa(int(s)) + ")"
}

// IPOptions configures [ClientIP]. The zero value keys every request by its
// direct peer, r.RemoteAddr, and reads no header.
type IPOptions struct {
	// TrustedProxies are the networks of the proxies in front of the
	// application. Forwarding headers are read only when the direct peer is
	// in one of them, and X-Forwarded-For or Forwarded is walked from the
	// right, skipping entries in them: the first entry outside them is the
	// client. When every entry is inside them, the left-most one is the
	// client. Prefixes of v4-mapped IPv6 addresses (::ffff:10.0.0.0/104)
	// are taken as the IPv4 prefix they map.
	TrustedProxies []netip.Prefix
	// TrustedProxyCIDRs are more trusted networks in text form: CIDRs such
	// as "10.0.0.0/8" or "2001:db8::/32", or single addresses. They are
	// parsed by ClientIP, which fails on any it can't parse.
	//
	// Networks that hold every address of a family (0.0.0.0/0, ::/0, or
	// together, as 0.0.0.0/1 with 128.0.0.0/1) are refused, in either
	// field or both: they hold the clients too, so that the left-most
	// entry, which a client writes, would be taken as the client. When
	// every peer is a proxy, set TrustedHops.
	TrustedProxyCIDRs []string
	// TrustedHops is the number of proxies in front of the application when
	// their addresses are not known. The direct peer is then always taken as
	// a trusted proxy (one reaching the application over a Unix socket,
	// whose RemoteAddr holds no address, too), and the client is the entry
	// TrustedHops from the right of X-Forwarded-For or Forwarded (1: the
	// right-most one). A chain shorter than TrustedHops is not used.
	// TrustedHops and trusted networks are exclusive: set one or the other.
	TrustedHops int
	// Source is the list header walked: X-Forwarded-For (the default) or
	// Forwarded, or none. Setting Forwarded needs trusted proxies or hops.
	Source Source
	// Headers are single-address headers set by the trusted proxies, such as
	// "X-Real-IP", "CF-Connecting-IP" or "True-Client-IP", read in order
	// before the list header and only when the direct peer is trusted. None
	// is read unless named here: name only the headers that the proxies
	// overwrite, since a client can send any of them. Setting Headers needs
	// trusted proxies or hops.
	Headers []string
	// IPv4Prefix is the prefix length IPv4 clients are keyed by, 8 to 32;
	// 0 means 32.
	IPv4Prefix int
	// IPv6Prefix is the prefix length IPv6 clients are keyed by, 32 to 128;
	// 0 means 64, the usual size of one site's network.
	IPv6Prefix int
	// NAT64Prefixes are the IPv6 prefixes of the translators (NAT64, SIIT,
	// as in an IPv6-only data centre) through which IPv4 clients reach the
	// application, in text ("2001:db8:64::/96"), laid out as RFC 6052 says:
	// /32, /40, /48, /56, /64 or /96. A client address in one is keyed as
	// the IPv4 address it embeds: keyed by IPv6Prefix, every IPv4 client of
	// the translator would share one key, and one abuser would throttle
	// them all. The well-known prefix 64:ff9b::/96 is always one; name the
	// local-use one (64:ff9b:1::/48, RFC 8215) with the length your
	// translator uses within it.
	NAT64Prefixes []string
}

// ClientIP returns a Func that keys a request by its client's IP address,
// masked to a prefix and written in canonical form: "198.51.100.7/32",
// "2001:db8:1:2::/64". It fails, wrapping [ErrInvalidOptions], on options it
// can't use: unparseable trusted networks or networks that together hold
// every address of a family (0.0.0.0/0), prefix lengths out of range, hops
// below zero, hops together with trusted networks, unknown sources, invalid
// header names, headers to read with nothing trusted, trust with nothing to
// read (SourceNone and no Headers), or NAT64 prefixes that are not IPv6
// prefixes of an RFC 6052 length.
//
// The client is the direct peer, r.RemoteAddr ("host:port" or a bare
// address), unless the peer is a trusted proxy (see [IPOptions]); then it is
// taken from the first of these that is present in the request:
//
//  1. each header named in [IPOptions.Headers], in order. It must hold one
//     address; sent on several lines, the last one decides, the line the
//     nearest proxy added (a proxy that adds its line rather than replacing
//     the client's).
//  2. the list header of [IPOptions.Source], all of its lines merged in
//     order and walked from the right.
//
// Forwarding headers fail closed: when the header that decides holds an
// entry that can't be used — empty, unparseable, an address with a zone ID,
// "unknown" or an obfuscated Forwarded identifier — among the entries walked
// to find the client, the header is not used at all and the client is the
// direct peer. No other header is then tried. Entries left of the client,
// and lines of a single-address header before the last, are never read:
// whatever a client writes there (on the line its proxy appends to, too)
// cannot move it to another key.
//
// Every address is unmapped (::ffff:192.0.2.1 is 192.0.2.1) before it is
// checked against trusted networks or keyed, ports are dropped, and addresses
// with a zone ID are refused in forwarding headers (the zone names an
// interface of the proxy that wrote it). A link-local peer's RemoteAddr
// keeps its zone, the interface it came in by, which the kernel writes:
// every link is fe80::/64 and the same address on two links is two hosts,
// so that such a peer is keyed by its link, "fe80::%eth0/64" (by
// IPv6Prefix; "fe80::1%eth0/128" by 128). It is never a trusted proxy by
// the networks that hold its address (but with TrustedHops, where every
// peer is one): they name no link, and every host chooses its link-local
// address, so that a host on another link of this one could take a
// proxy's; its headers are not read. A zone on another address is dropped;
// one that no kernel writes (over 32 bytes, or holding a space, a '%' or a
// '/') makes the RemoteAddr unusable. A client address that embeds the IPv4 address
// of the host behind it is keyed as that IPv4 address, by IPv4Prefix: one of
// a NAT64 translator (64:ff9b::/96 and [IPOptions.NAT64Prefixes]), of 6to4
// (2002::/16, RFC 3056: one IPv4 host holds 65,536 /64s) or of Teredo
// (2001::/32, RFC 4380: the clients of one Teredo server share a /64);
// trust is checked on the address as written. A RemoteAddr that can't be
// used gives an error wrapping [ErrNoKey], unless TrustedHops is set and a forwarding header
// names the client: every peer is then a proxy, one without an IP address
// too (a Unix socket's RemoteAddr, "@" or "").
//
// A request from a private, loopback or shared (100.64.0.0/10) peer that
// is not a trusted proxy but carries X-Forwarded-For, Forwarded or
// X-Real-IP is keyed by the peer as above; one is logged (a warning to
// slog's default logger, once per Func; requests of one connection in ten
// are looked at): the usual sign of a proxy nobody named, behind which
// every client shares one key.
func ClientIP(opts IPOptions) (Func, error) {
	c, err := newIPExtractor(opts)
	if err != nil {
		return nil, err
	}
	return c.key, nil
}

type ipExtractor struct {
	trusted []netip.Prefix
	nat64   []netip.Prefix // the translators' prefixes, the well-known one last
	hops    int
	source  Source
	headers []string // canonical names
	v4Bits  int
	v6Bits  int

	hinted atomic.Bool                   // hintUntrusted has logged
	warn   func(msg string, args ...any) // hintUntrusted's log; nil: slog.Warn
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidOptions}, args...)...)
}

func newIPExtractor(opts IPOptions) (*ipExtractor, error) {
	c := &ipExtractor{hops: opts.TrustedHops, source: opts.Source, v4Bits: defaultIPv4Prefix, v6Bits: defaultIPv6Prefix}
	for _, p := range opts.TrustedProxies {
		if !p.IsValid() || p.Addr().Zone() != "" {
			return nil, invalid("trusted proxy prefix %v is not valid", p)
		}
		c.trusted = append(c.trusted, normalizePrefix(p))
	}
	for _, s := range opts.TrustedProxyCIDRs {
		p, err := parseCIDR(s)
		if err != nil {
			return nil, invalid("trusted proxy %q: %v", s, err)
		}
		c.trusted = append(c.trusted, p)
	}
	for _, v4 := range []bool{true, false} {
		if coverAll(c.trusted, v4) {
			family := "IPv6"
			if v4 {
				family = "IPv4"
			}
			// Every client would be a trusted proxy too: the walk would
			// skip the address a proxy saw and key the request by the
			// left-most entry, the one the client writes.
			return nil, invalid("trusted proxy networks %v hold every %s address, clients too (use TrustedHops when every peer is a proxy)",
				c.trusted, family)
		}
	}
	switch {
	case c.hops < 0:
		return nil, invalid("TrustedHops %d is below zero", c.hops)
	case c.hops > 0 && len(c.trusted) > 0:
		return nil, invalid("TrustedHops and trusted proxy networks are exclusive")
	}
	trusts := c.hops > 0 || len(c.trusted) > 0
	switch c.source {
	case SourceXForwardedFor, SourceNone:
	case SourceForwarded:
		if !trusts {
			return nil, invalid("Source %v needs trusted proxies or hops", c.source)
		}
	default:
		return nil, invalid("unknown %v", c.source)
	}
	switch {
	case len(opts.Headers) > 0 && !trusts:
		return nil, invalid("Headers need trusted proxies or hops")
	case c.source == SourceNone && trusts && len(opts.Headers) == 0:
		// The trust would read nothing: every request through a proxy
		// (with hops, every request) would be keyed by the proxy.
		return nil, invalid("Source %v with trusted proxies or hops needs Headers to read", c.source)
	}
	for _, h := range opts.Headers {
		if !httpsyntax.IsToken(h) {
			return nil, invalid("header name %q is not valid", h)
		}
		h = http.CanonicalHeaderKey(h)
		switch {
		case h == "X-Forwarded-For" || h == "Forwarded":
			return nil, invalid("%s is a list header: select it with Source", h)
		case h == hostHeader:
			return nil, invalid("header %s: %s", h, hostMoved)
		case slices.Contains(c.headers, h):
			return nil, invalid("header %s is named twice", h)
		}
		c.headers = append(c.headers, h)
	}
	if opts.IPv4Prefix != 0 {
		if opts.IPv4Prefix < 8 || opts.IPv4Prefix > 32 {
			return nil, invalid("IPv4Prefix %d is out of 8..32", opts.IPv4Prefix)
		}
		c.v4Bits = opts.IPv4Prefix
	}
	if opts.IPv6Prefix != 0 {
		if opts.IPv6Prefix < 32 || opts.IPv6Prefix > 128 {
			return nil, invalid("IPv6Prefix %d is out of 32..128", opts.IPv6Prefix)
		}
		c.v6Bits = opts.IPv6Prefix
	}
	for _, s := range opts.NAT64Prefixes {
		p, err := netip.ParsePrefix(s)
		switch {
		case err != nil:
			return nil, invalid("NAT64 prefix %q: %v", s, err)
		case !p.Addr().Is6() || p.Addr().Is4In6() || p.Addr().Zone() != "":
			return nil, invalid("NAT64 prefix %q is not an IPv6 prefix", s)
		case !nat64Bits(p.Bits()):
			return nil, invalid("NAT64 prefix %q: want a length of 32, 40, 48, 56, 64 or 96 (RFC 6052)", s)
		}
		c.nat64 = append(c.nat64, p.Masked())
	}
	c.nat64 = append(c.nat64, nat64)
	return c, nil
}

// parseCIDR parses a CIDR or a single address into a masked prefix.
func parseCIDR(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return normalizePrefix(p), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("neither a CIDR nor an address")
	}
	if a.Zone() != "" {
		return netip.Prefix{}, fmt.Errorf("address has a zone")
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// normalizePrefix masks p and turns a v4-mapped prefix of 96 bits or more
// into the IPv4 prefix it maps, since addresses are unmapped before they are
// checked.
func normalizePrefix(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked()
}

// maxIPKey is the longest key of a client IP.
const maxIPKey = len("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128")

func (c *ipExtractor) key(r *http.Request) (string, error) {
	var buf [maxIPKey]byte
	b, err := c.appendKey(buf[:0], r)
	if err != nil {
		return "", err
	}
	return string(b), nil // one allocation, where netip.Prefix.String makes two
}

// defaultIP is the extractor of ClientIP with zero IPOptions, made by the
// same constructor, so that AppendClientIP cannot drift from it; zero
// options are valid (TestClientIPRemoteAddr checks the two agree).
var defaultIP, _ = newIPExtractor(IPOptions{})

// AppendClientIP appends to dst the key that the Func of ClientIP with
// zero [IPOptions] gives r (its RemoteAddr's address, by /32 for IPv4 and
// /64 for IPv6), and returns the extended buffer; on an error, wrapping
// [ErrNoKey] as that Func's does, it returns dst unchanged. It is for
// callers that hash keys without making strings, such as the middleware's
// default key: into a buffer with room for 43 bytes it allocates nothing
// (76 with a link-local peer's zone).
func AppendClientIP(dst []byte, r *http.Request) ([]byte, error) {
	return defaultIP.appendKey(dst, r)
}

// appendKey appends the key of r to dst.
func (c *ipExtractor) appendKey(dst []byte, r *http.Request) ([]byte, error) {
	if a, n, ok := parseIPv4Node(r.RemoteAddr); ok && c.v4Bits == 32 && (c.trustsNone() || !c.peerTrusted(netip.AddrFrom4(a))) {
		// The usual case: the key is the address as written, canonical
		// already (see parseIPv4Node), by /32.
		c.hintUntrusted(r, netip.AddrFrom4(a))
		dst = append(dst, r.RemoteAddr[:n]...)
		return append(dst, "/32"...), nil
	}
	peer, ok := parsePeer(r.RemoteAddr)
	client := peer
	switch {
	case ok && (c.hops > 0 || peer.Zone() == "" && c.isTrusted(peer)), !ok && c.hops > 0:
		// With TrustedHops every peer is a proxy, one without an IP
		// address too (a Unix socket's "@" or ""): its headers name the
		// client. A link-local peer (its zone kept) is never trusted by
		// networks: they name no link, and any host may take the
		// address of a trusted proxy on another link of this host.
		if a, found := c.fromHeaders(r.Header); found {
			client, ok = a, true
		}
	case ok:
		c.hintUntrusted(r, peer)
	}
	if !ok {
		return dst, fmt.Errorf("keyfunc: client IP: unusable RemoteAddr %.64q: %w", r.RemoteAddr, ErrNoKey)
	}
	client = unembed(client, c.nat64)
	bits := c.v6Bits
	if client.Is4() {
		bits = c.v4Bits
	}
	return appendPrefix(dst, client, bits), nil
}

// appendPrefix appends to dst the prefix of a by bits, canonical
// ("2001:db8::/64"); the zone of a link-local peer (see parsePeer) is
// written after the address, as RFC 4007 §11.7 writes it:
// "fe80::%eth0/64". bits must fit a's family.
func appendPrefix(dst []byte, a netip.Addr, bits int) []byte {
	zone := a.Zone()
	p, _ := a.WithZone("").Prefix(bits) // cannot fail: bits fit and the zone is gone
	if zone == "" {
		return p.AppendTo(dst)
	}
	dst = p.Addr().AppendTo(dst)
	dst = append(dst, '%')
	dst = append(dst, zone...)
	dst = append(dst, '/')
	return strconv.AppendInt(dst, int64(bits), 10)
}

// trustsNone reports whether c trusts no proxy, so that no peer is
// trusted: the default, told without looking at the address.
func (c *ipExtractor) trustsNone() bool { return c.hops == 0 && len(c.trusted) == 0 }

func (c *ipExtractor) peerTrusted(peer netip.Addr) bool {
	return c.hops > 0 || c.isTrusted(peer)
}

func (c *ipExtractor) isTrusted(a netip.Addr) bool {
	for _, p := range c.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// fromHeaders returns the client named by the first forwarding header present
// in h; ok is false when none is present or the one present can't be used.
func (c *ipExtractor) fromHeaders(h http.Header) (netip.Addr, bool) {
	for _, name := range c.headers {
		if vals := h.Values(name); len(vals) > 0 {
			return parseNode(trimOWS(vals[len(vals)-1]), false)
		}
	}
	switch c.source {
	case SourceXForwardedFor:
		if vals := h.Values("X-Forwarded-For"); len(vals) > 0 {
			return c.walk(xffEntries(vals))
		}
	case SourceForwarded:
		if vals := h.Values("Forwarded"); len(vals) > 0 {
			return c.walk(forwardedEntries(vals))
		}
	}
	return netip.Addr{}, false
}

// walk picks the client among entries given from the right-most one: the one
// c.hops from the right, or the first one that is not a trusted proxy (the
// left-most one when all are). Every entry reached must be usable.
func (c *ipExtractor) walk(entries iter.Seq2[netip.Addr, bool]) (netip.Addr, bool) {
	n := 0
	var last netip.Addr
	for a, ok := range entries {
		if !ok {
			return netip.Addr{}, false
		}
		n++
		if c.hops > 0 {
			if n == c.hops {
				return a, true
			}
			continue
		}
		if !c.isTrusted(a) {
			return a, true
		}
		last = a
	}
	if c.hops > 0 || n == 0 {
		return netip.Addr{}, false
	}
	return last, true
}

// The prefixes client addresses are grouped by when IPOptions leaves them 0.
const (
	defaultIPv4Prefix = 32
	defaultIPv6Prefix = 64
)

// AddrKey returns the key ClientIP's default prefixes (/32 for IPv4, /64
// for IPv6) give the address s, an IPv4 address embedded in it (NAT64's
// well-known prefix, 6to4, Teredo) as ClientIP keys it: for extractors
// that learn the client address elsewhere (a router's own client-IP
// logic, opted into). A link-local address's zone is kept as ClientIP
// keeps a link-local peer's ("fe80::%eth0/64"), another's is dropped. An
// unparseable address, or one with a zone no kernel writes, is an error
// wrapping ErrNoKey, quoting at most 64 characters of s (a client may have
// written it).
func AddrKey(s string) (string, error) {
	a, err := netip.ParseAddr(s)
	if err == nil {
		a, ok := linkZone(a.Unmap())
		if ok {
			return addrKey(a), nil
		}
	}
	return "", fmt.Errorf("keyfunc: client address %.64q: %w", s, ErrNoKey)
}

// addrKey is AddrKey's key of a parsed address.
func addrKey(a netip.Addr) string {
	a = unembed(a, defaultIP.nat64)
	bits := defaultIPv4Prefix
	if a.Is6() {
		bits = defaultIPv6Prefix
	}
	var buf [maxIPKey + 1 + maxZone]byte
	return string(appendPrefix(buf[:0], a, bits))
}

// nat64 is the NAT64 well-known prefix (RFC 6052): 64:ff9b::a.b.c.d is the
// IPv4 host a.b.c.d seen through a translator (SIIT-DC, reverse NAT64).
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// The prefixes of the tunnels whose addresses embed the IPv4 address of
// the host using them: 6to4 (RFC 3056), 2002:a.b.c.d::/48, and Teredo (RFC
// 4380), 2001:0:server:flags:port:client, the client's port and address
// stored inverted.
var (
	sixToFour = netip.MustParsePrefix("2002::/16")
	teredo    = netip.MustParsePrefix("2001::/32")
)

// unembed returns the IPv4 address a translator's address (one in a prefix
// of prefixes) or a tunnel's (6to4, Teredo) embeds, and any other address
// unchanged: grouped by the IPv6 prefix, every IPv4 client behind the
// translator or of one Teredo server would share one key (one abuser would
// throttle them all), one 6to4 host would hold 65,536 /64 keys for its one
// IPv4 address, and a client's key would differ with the path it came by.
func unembed(a netip.Addr, prefixes []netip.Prefix) netip.Addr {
	if !a.Is6() {
		return a
	}
	b := a.As16()
	for _, p := range prefixes {
		if p.Contains(a) {
			var v4 [4]byte
			n := 0
			for i := p.Bits() / 8; n < 4; i++ {
				if i != 8 { // bits 64 to 71 are not the address's
					v4[n] = b[i]
					n++
				}
			}
			return netip.AddrFrom4(v4)
		}
	}
	switch {
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6]))
	case teredo.Contains(a):
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
	}
	return a
}

// nat64Bits reports whether RFC 6052 §2.2 lays out the IPv4 address in a
// translator's prefix of bits: after the prefix, skipping bits 64 to 71.
func nat64Bits(bits int) bool {
	switch bits {
	case 32, 40, 48, 56, 64, 96:
		return true
	}
	return false
}
