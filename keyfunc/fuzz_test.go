package keyfunc

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// fuzzConfigs are the ClientIP configurations FuzzClientIP picks from.
var fuzzConfigs = []IPOptions{
	{},
	{TrustedProxies: prefixes("10.0.0.0/8", "2001:db8:ffff::/48"), Headers: []string{"X-Real-IP"}},
	{TrustedProxies: prefixes("10.0.0.0/8", "2001:db8:ffff::/48"), Source: SourceForwarded, IPv4Prefix: 24, IPv6Prefix: 48},
	{TrustedHops: 1, Headers: []string{"X-Real-IP"}, IPv6Prefix: 128},
	{TrustedHops: 2},
	{TrustedHops: 2, Source: SourceForwarded, IPv4Prefix: 16},
}

// FuzzClientIP checks that ClientIP never panics and that a key it returns is
// a canonical, masked prefix of an address written somewhere in the request:
// it can't make up a client.
func FuzzClientIP(f *testing.F) {
	f.Add("[fe80::1%eth0]:443", "203.0.113.9", "", "", uint8(0))
	f.Add("10.0.0.1:443", "203.0.113.9, 10.0.0.2", `for="[2001:db8::1]:80"`, "198.51.100.1", uint8(1))
	f.Add("[64:ff9b::cb00:7109]:443", "64:ff9b::1.2.3.4", `for="[64:ff9b::5.6.7.8]"`, "64:ff9b::9.9.9.9", uint8(0))
	f.Add("[2002:c000:22d:1::1]:443", "2001:0:4136:e378:8000:63bf:3fff:fdd2", `for="[2002:102:304::1]"`, "2001::1", uint8(3))
	f.Fuzz(func(t *testing.T, remote, xff, fwd, realIP string, mode uint8) {
		opts := fuzzConfigs[int(mode)%len(fuzzConfigs)]
		fn, err := ClientIP(opts)
		if err != nil {
			t.Fatal(err)
		}
		r := newReq(remote)
		for _, v := range strings.Split(xff, "\n") {
			r.Header.Add("X-Forwarded-For", v)
		}
		for _, v := range strings.Split(fwd, "\n") {
			r.Header.Add("Forwarded", v)
		}
		if realIP != "" {
			r.Header.Add("X-Real-IP", realIP)
		}
		key, err := fn(r)
		if opts.TrustedHops == 0 && len(opts.TrustedProxies)+len(opts.TrustedProxyCIDRs) == 0 &&
			opts.IPv4Prefix == 0 && opts.IPv6Prefix == 0 {
			// Without trust nor prefixes, the key is AppendClientIP's.
			app, appErr := AppendClientIP(nil, r)
			if string(app) != key || (appErr == nil) != (err == nil) {
				t.Fatalf("AppendClientIP %q, %v; ClientIP %q, %v", app, appErr, key, err)
			}
		}

		// RemoteAddr is "host:port", as net/http writes it, or a bare
		// address ("v4", "v6", "[v6]"), which the key functions take too.
		// parsePeer refuses some that netip takes (a zone holding a ']',
		// which no kernel writes); of those both take, it must read what
		// netip reads.
		peerAddr, peerOK := parsePeer(remote)
		if peer, err := netip.ParseAddrPort(remote); err == nil && peerOK {
			if want, _ := linkZone(peer.Addr().Unmap()); want != peerAddr {
				t.Fatalf("RemoteAddr %q read as %v, netip reads %v", remote, peerAddr, want)
			}
		}
		if err != nil {
			if !errors.Is(err, ErrNoKey) || key != "" {
				t.Fatalf("error %v with key %q", err, key)
			}
			if peerOK {
				t.Fatalf("RemoteAddr %q is usable, yet: %v", remote, err)
			}
			return
		}

		// Only a link-local peer's zone is in a key, after the address.
		bare := key
		if i := strings.IndexByte(key, '%'); i >= 0 {
			j := strings.LastIndexByte(key, '/')
			if j < i || !peerOK || peerAddr.Zone() != key[i+1:j] || !peerAddr.IsLinkLocalUnicast() {
				t.Fatalf("key %q has a zone not the link-local peer's", key)
			}
			bare = key[:i] + key[j:]
		}
		p, perr := netip.ParsePrefix(bare)
		if perr != nil || p.String() != bare || p != p.Masked() || p.Addr().Is4In6() || p.Addr().Zone() != "" {
			t.Fatalf("key %q is not a canonical masked prefix", key)
		}
		v4, v6 := 32, 64
		if opts.IPv4Prefix != 0 {
			v4 = opts.IPv4Prefix
		}
		if opts.IPv6Prefix != 0 {
			v6 = opts.IPv6Prefix
		}
		if want := map[bool]int{true: v4, false: v6}[p.Addr().Is4()]; p.Bits() != want {
			t.Fatalf("key %q: want /%d", key, want)
		}
		if a := peerAddr.WithZone(""); peerOK && opts.TrustedHops == 0 && !anyContains(opts.TrustedProxies, a) {
			if want, _ := fromNAT64(a).Prefix(p.Bits()); want != p || bare == key && peerAddr.Zone() != "" && peerAddr.IsLinkLocalUnicast() {
				t.Fatalf("untrusted peer %q gave key %q", remote, key)
			}
		}
		if !writtenIn(p, remote, xff, fwd, realIP) {
			t.Fatalf("key %q is no address of the request", key)
		}
	})
}

func anyContains(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// writtenIn reports whether some substring of the inputs, backslashes
// dropped (Forwarded quoted pairs), is a zone-free address that p holds
// once unmapped.
func writtenIn(p netip.Prefix, inputs ...string) bool {
	for _, s := range inputs {
		s = strings.ReplaceAll(s, `\`, "")
		for i := range len(s) {
			for j := i + 2; j <= len(s) && j-i <= 64; j++ {
				a, err := netip.ParseAddr(s[i:j])
				if err != nil || a.Zone() != "" {
					continue
				}
				if m, err := fromNAT64(a.Unmap()).Prefix(p.Bits()); err == nil && m == p {
					return true
				}
			}
		}
	}
	return false
}

// FuzzJoin checks that Join is injective: two lists of parts give the same
// key only when they are equal, and the key decodes back into its parts.
func FuzzJoin(f *testing.F) {
	f.Add("a|b", "c", "a", "b|c", "", uint8(0))
	f.Fuzz(func(t *testing.T, a1, a2, b1, b2, b3 string, shape uint8) {
		x := []string{a1, a2}[:1+int(shape)%2]
		y := []string{b1, b2, b3}[:1+int(shape/2)%3]
		kx, ex := joinParts(t, x)
		ky, ey := joinParts(t, y)
		for _, c := range []struct {
			parts []string
			key   string
			err   error
		}{{x, kx, ex}, {y, ky, ey}} {
			if slices.Contains(c.parts, "") {
				if !errors.Is(c.err, ErrNoKey) {
					t.Fatalf("parts %q with an empty one: %q, %v", c.parts, c.key, c.err)
				}
				continue
			}
			if c.err != nil {
				t.Fatal(c.err)
			}
			if back, ok := splitJoined(c.key); !ok || !slices.Equal(back, c.parts) {
				t.Fatalf("key %q decodes to %q, not %q", c.key, back, c.parts)
			}
		}
		if ex == nil && ey == nil && (kx == ky) != slices.Equal(x, y) {
			t.Fatalf("%q and %q give keys %q and %q", x, y, kx, ky)
		}
	})
}

// fromNAT64 is the IPv4 address a NAT64 well-known-prefix address
// (64:ff9b::/96, RFC 6052) holds in its last 32 bits, a 6to4 address
// (2002::/16, RFC 3056) in its bits 16 to 47, or a Teredo address
// (2001::/32, RFC 4380) inverted in its last 32 bits, or a itself.
func fromNAT64(a netip.Addr) netip.Addr {
	b := a.As16()
	switch {
	case !a.Is6():
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && [8]byte(b[4:12]) == [8]byte{}:
		return netip.AddrFrom4([4]byte(b[12:]))
	case b[0] == 0x20 && b[1] == 0x02:
		return netip.AddrFrom4([4]byte(b[2:6]))
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0:
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
	}
	return a
}

// FuzzIPv4Node checks parseIPv4Node, the fast path of RemoteAddr parsing,
// against parseNode: whatever it takes, parseNode takes as the same
// address, whose canonical text is the one it found.
func FuzzIPv4Node(f *testing.F) {
	for _, s := range []string{"192.0.2.7:4321", "192.0.2.7", "0.0.0.0:0", "255.255.255.255:65535",
		"01.2.3.4", "1.2.3.4:", "1.2.3.4:65536", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "1.2.3.4:80:80", "[::1]:80",
		"1.2.3.04", "1.2.3.400", "1.2.3.4a", "1.2.3.1000", "1.2.3.4:065535", "1.2.3.4:065536", "1.2.3.4:99999",
		"1.2.3.4:0000000000000000080", "1.2.3.4:00", "1.2.3.4:8a", ".1.2.3", "1.2.3."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, n, ok := parseIPv4Node(s)
		if !ok {
			// It takes every plain IPv4 address, with a port or without.
			if addr, err := netip.ParseAddr(s); err == nil && addr.Is4() {
				t.Fatalf("parseIPv4Node(%q) refused an IPv4 address", s)
			}
			if ap, err := netip.ParseAddrPort(s); err == nil && ap.Addr().Is4() {
				t.Fatalf("parseIPv4Node(%q) refused an IPv4 address and port", s)
			}
			return
		}
		want, wantOK := parseNode(s, false)
		if !wantOK || want != netip.AddrFrom4(a) || want.String() != s[:n] {
			t.Fatalf("parseIPv4Node(%q) = %v, %q; parseNode: %v, %v", s, netip.AddrFrom4(a), s[:n], want, wantOK)
		}
	})
}
