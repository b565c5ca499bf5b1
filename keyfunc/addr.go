package keyfunc

import (
	"net/netip"
	"strings"
)

// parseNode parses one address as found in RemoteAddr or a forwarding header:
// a bare IPv4 or IPv6 address, "v4:port", "[v6]" or "[v6]:port". The port is
// checked and dropped. With obfPort, a port may also be an RFC 7239
// obfuscated port ("_abc"). Addresses with a zone are refused. The result is
// unmapped: ::ffff:192.0.2.1 comes back as 192.0.2.1.
func parseNode(s string, obfPort bool) (netip.Addr, bool) {
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
	if err != nil || a.Zone() != "" {
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
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		// n stays at most 65536 (saturated), so it never overflows
		// however many digits follow.
		n = min(n*10+int(c-'0'), 65536)
	}
	return n <= 65535
}

// trimOWS removes HTTP optional whitespace (spaces and tabs) around s.
func trimOWS(s string) string { return strings.Trim(s, " \t") }

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
