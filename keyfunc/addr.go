package keyfunc

import (
	"net/netip"
	"strings"
)

// parseNode parses one address as found in RemoteAddr or a forwarding header:
// a bare IPv4 or IPv6 address, "v4:port", "[v6]" or "[v6]:port". The port is
// checked and dropped. With obfPort, a port may also be an RFC 7239
// obfuscated port ("_abc"). Addresses with a zone are refused: in a
// forwarding header a zone names an interface of the host that wrote it,
// nothing here (see parsePeer for RemoteAddr). The result is unmapped:
// ::ffff:192.0.2.1 comes back as 192.0.2.1.
func parseNode(s string, obfPort bool) (netip.Addr, bool) {
	a, ok := parseZoned(s, obfPort)
	if !ok || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a, true
}

// maxZone is the longest zone parsePeer keeps: an interface name (16
// bytes at most on Linux) or index, with room to spare.
const maxZone = 32

// parsePeer parses RemoteAddr as parseNode does, but keeps the zone of a
// link-local unicast address (fe80::/10), the interface the peer came in
// by, which the kernel writes: every link is fe80::/64, and the same
// address on two links is two hosts, so that the link is part of the
// client's identity. A zone on any other address names no link and is
// dropped. A zone that no kernel writes, longer than maxZone or holding a
// byte that is not printable ASCII, a '%' or a '/' (either would make the
// key ambiguous), is refused.
func parsePeer(s string) (netip.Addr, bool) {
	a, ok := parseZoned(s, false)
	if !ok {
		return netip.Addr{}, false
	}
	return linkZone(a)
}

// linkZone returns a with its zone kept as parsePeer keeps it: only on a
// link-local unicast address, and only one a kernel writes.
func linkZone(a netip.Addr) (netip.Addr, bool) {
	z := a.Zone()
	switch {
	case z == "":
		return a, true
	case !a.IsLinkLocalUnicast():
		return a.WithZone(""), true
	case len(z) > maxZone:
		return netip.Addr{}, false
	}
	for i := 0; i < len(z); i++ {
		if c := z[i]; c <= ' ' || c >= 0x7f || c == '%' || c == '/' {
			return netip.Addr{}, false
		}
	}
	return a, true
}

// parseZoned is parseNode, keeping whatever zone the address has.
func parseZoned(s string, obfPort bool) (netip.Addr, bool) {
	var host string
	switch {
	case s == "":
		return netip.Addr{}, false
	case s[0] == '[':
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return netip.Addr{}, false
		}
		host = s[1:end]
		if rest := s[end+1:]; rest != "" && (rest[0] != ':' || !validPort(rest[1:], obfPort)) {
			return netip.Addr{}, false
		}
		if strings.IndexByte(host, ':') < 0 { // "[192.0.2.1]" is not a form anyone writes
			return netip.Addr{}, false
		}
	case strings.Count(s, ":") == 1: // IPv4 with a port: IPv6 text has at least two colons
		i := strings.IndexByte(s, ':')
		if !validPort(s[i+1:], obfPort) {
			return netip.Addr{}, false
		}
		host = s[:i]
		if strings.IndexByte(host, '.') < 0 {
			return netip.Addr{}, false
		}
	default:
		host = s
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// validPort reports whether s is a decimal port (0-65535) or, with obf, an
// RFC 7239 obfuscated port. A decimal port is what netip.ParseAddrPort (and
// so strconv.ParseUint(s, 10, 16)) accepts: one or more ASCII digits, any
// number of them leading zeros ("000080" is port 80), no sign, no
// separators.
func validPort(s string, obf bool) bool {
	if s == "" {
		return false
	}
	if obf && s[0] == '_' {
		if len(s) == 1 {
			return false
		}
		for i := 1; i < len(s); i++ {
			c := s[i]
			if !isAlnum(c) && c != '.' && c != '_' && c != '-' {
				return false
			}
		}
		return true
	}
	// Any number of digits, whose value (held at 65536 once it passes
	// 65535, so that it never overflows) is at most 65535.
	n := uint32(0)
	for i := 0; i < len(s); i++ {
		d := uint32(s[i] - '0')
		if d > 9 {
			return false
		}
		n = min(n*10+d, 65536)
	}
	return n <= 65535
}

// trimOWS removes HTTP optional whitespace (spaces and tabs) around s.
func trimOWS(s string) string { return strings.Trim(s, " \t") }

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// parseIPv4Node is parseNode's fast path for the usual RemoteAddr, an IPv4
// address with or without a port ("192.0.2.7:4321"). It returns the
// address and the length n of its text, s[:n], which is its canonical
// form: netip.ParseAddr takes no leading zero, no empty or overlong field.
// ok is false for whatever it does not take as parseNode would (IPv6, or
// anything invalid), which parseNode then decides: a fast path, never a
// second opinion.
func parseIPv4Node(s string) (a [4]byte, n int, ok bool) {
	var addr uint32
	for field := 0; ; field++ {
		// An octet as netip.ParseAddr takes it: one to three digits, no
		// leading zero, at most 255.
		if n >= len(s) || s[n]-'0' > 9 {
			return a, 0, false
		}
		v := uint32(s[n] - '0')
		n++
		if v != 0 && n < len(s) && s[n]-'0' <= 9 {
			v = v*10 + uint32(s[n]-'0')
			n++
			if n < len(s) && s[n]-'0' <= 9 {
				v = v*10 + uint32(s[n]-'0')
				n++
			}
		}
		if v > 255 {
			return a, 0, false
		}
		addr = addr<<8 | v
		if field == 3 {
			break
		}
		if n >= len(s) || s[n] != '.' {
			return a, 0, false
		}
		n++
	}
	// What follows the address: nothing, or a port (a digit here, after a
	// zero or three digits, is refused as anything but ':' is).
	if n < len(s) && (s[n] != ':' || !validPort(s[n+1:], false)) {
		return a, 0, false
	}
	return [4]byte{byte(addr >> 24), byte(addr >> 16), byte(addr >> 8), byte(addr)}, n, true
}
