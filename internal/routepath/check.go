package routepath

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Check refuses a route pattern that ServeMux accepts but that no request
// a client sends reaches as written, so that a limit given to it would
// load and limit nothing. It returns the 1-based byte column in p of the
// mistake, and the mistake; 0 and nil for a pattern it finds nothing wrong
// with (ServeMux checks it next).
//
// Refused are an invisible character or a space other than a space or a
// tab ("POST\u00a0/login" is the host "POST\u00a0", never a request's;
// a zero-width joiner or non-joiner between two characters that are not
// ASCII, part of a word or an emoji, passes), a
// pattern ending in a line break (a YAML block scalar's) or in a space or
// a tab (the path would end in it), a method that is no method a client
// sends as one ("GET|POST", "*", "ANY"), a host that is not one as
// ServeMux compares it (a URL's "https:", a port, upper case, a trailing
// dot or another empty label, a name not in its ASCII form, an IPv6
// address in brackets or not in its canonical form), and a path holding '?' or '#' (a
// request's path holds neither: they start its query and its fragment),
// a space or a tab ("POST /login, POST /signup": two patterns in one),
// outside the braces of a router's parameter. Router templates (":id",
// "*", "{id:[0-9]+}") pass.
func Check(p string) (int, error) {
	if t := strings.TrimRight(p, "\r\n"); t != p && !strings.ContainsAny(t, "\r\n") {
		return len(t) + 1, errors.New("ends in a line break, which a YAML block scalar (| or >) keeps: write |- or >-, or the pattern on one line")
	}
	for i, r := range p {
		if r != ' ' && r != '\t' && invisible(r) && !joiner(p, i, r) {
			return i + 1, fmt.Errorf("character %U is invisible or a space ServeMux does not read as one (only a space or a tab separates the method from the path): retype it", r)
		}
	}
	if strings.HasSuffix(p, " ") || strings.HasSuffix(p, "\t") {
		return len(p), errors.New("ends in a space: the path would end in it, and no request's does")
	}
	method, rest, off := Split(p)
	if method != "" {
		if col, err := checkMethod(method); err != nil {
			return len(p) - len(strings.TrimLeft(p, " \t")) + col, err
		}
	}
	connect := strings.EqualFold(method, "CONNECT")
	path := rest
	if i := strings.IndexByte(rest, '/'); i > 0 {
		if col, err := checkHost(rest[:i], connect); err != nil {
			return off + col, err
		}
		path, off = rest[i:], off+i
	} else if i < 0 {
		return 0, nil // no path: ServeMux says so
	}
	if col, err := checkPath(path); err != nil {
		return off + col, err
	}
	return 0, nil
}

// invisible reports whether r is a control or format character, or a
// space or line break other than ASCII's.
func invisible(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r)
}

// joiner reports whether r, at byte i of p, is a zero-width non-joiner or
// joiner between two visible characters that are not ASCII: part of a
// word's spelling (Persian's non-joiner) or of an emoji sequence, which a
// path may hold. Beside ASCII it is no part of either, and a method or a
// host holding one is refused for its other characters.
func joiner(p string, i int, r rune) bool {
	if r != '\u200c' && r != '\u200d' {
		return false
	}
	b, _ := utf8.DecodeLastRuneInString(p[:i])
	a, _ := utf8.DecodeRuneInString(p[i+utf8.RuneLen(r):])
	visible := func(c rune) bool { return c >= utf8.RuneSelf && c != utf8.RuneError && !invisible(c) }
	return visible(b) && visible(a)
}

// checkMethod refuses a method no client sends as the one meant: a list
// or a wildcard, which ServeMux takes for one method of that name.
func checkMethod(m string) (int, error) {
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return i + 1, fmt.Errorf("%q is in no method: a pattern has one method (give several patterns, or none for every method)", string(c))
		}
	}
	switch strings.ToUpper(m) {
	case "ANY", "ALL":
		return 1, fmt.Errorf("the method %s is no method's but its own: leave the method out for every method", m)
	}
	return 0, nil
}

// checkHost refuses a host ServeMux compares with a request's host but
// that no request's host equals: ServeMux drops the request's port (but
// a CONNECT request's, whose host a pattern of CONNECT names with its
// port, which it must), and Routes matches it in lower case. A '{' is left for ServeMux
// to refuse in its own words.
func checkHost(h string, connect bool) (int, error) {
	if strings.HasSuffix(h, ":") || strings.Contains(h, "://") {
		return 1, errors.New("a pattern is not a URL: write the host and the path (api.example.com/login) or the path alone, without a scheme")
	}
	if strings.HasSuffix(h, ".") {
		return len(h), errors.New("leave the host's trailing dot out (a request's host with one is matched as without, and clients send none)")
	}
	if strings.HasPrefix(h, "[") && !connect {
		return 1, errors.New("write an IPv6 host without brackets (::1/x): ServeMux drops a request's brackets with its port, and Routes without one, so that only the bare address matches both")
	}
	addr := h
	if host, _, err := net.SplitHostPort(h); err == nil && connect {
		addr = host // CONNECT [::1]:443
	} else if connect && !strings.Contains(h, "{") {
		return len(h), errors.New("a CONNECT request names its host with its port (CONNECT example.com:443), as ServeMux matches it: write the port, or no host for every CONNECT")
	}
	ipv6, canon := false, ""
	if a, err := netip.ParseAddr(addr); err == nil && a.Is6() {
		ipv6, canon = true, a.WithZone("").String()
	}
	if !ipv6 {
		// An empty label: ".example.com" (nginx's "and its subdomains"),
		// "example..com", a CONNECT's "example.com.:443".
		if i := strings.Index("."+addr+".", ".."); i >= 0 && addr != "" {
			return strings.Index(h, addr) + min(i, len(addr)-1) + 1, errors.New("a host name has an empty label (a leading, doubled or trailing dot): a pattern names one host, written as clients send it; give each host its own pattern")
		}
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.', c == '_', c == ':' && connect:
		case c == '{':
			return 0, nil
		case ipv6 && (c == ':' || c == '[' || c == ']'):
		case c >= 'A' && c <= 'Z':
			return i + 1, errors.New("write the host in lower case (a request's host in any case is matched in lower case)")
		case c == ':':
			return i + 1, errors.New("a port is never part of the host ServeMux matches (it drops the request's): leave the port out")
		case c >= utf8.RuneSelf:
			return i + 1, errors.New("write the host name in its ASCII form (xn--…), as clients send it")
		default:
			return i + 1, fmt.Errorf("%q is in no host name", string(c))
		}
	}
	if ipv6 && canon != addr {
		// ServeMux compares the pattern's address as written, Routes the
		// request's in canonical form: "0:0::1" matched neither "[::1]"
		// nor "[0:0::1]" without a port.
		return strings.Index(h, addr) + 1, fmt.Errorf("write the IPv6 address in its canonical form, %s: a request's host in any spelling is matched in that form", canon)
	}
	return 0, nil
}

// checkPath refuses a path holding '?', '#', a space or a tab outside
// braces (a router's parameter, "{id:[0-9]?}", may hold them).
func checkPath(p string) (int, error) {
	depth := 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case depth == 0 && c == '?':
			return i + 1, errors.New("'?' starts a query, which a request's path never holds: leave the query out (the route limits the path whatever its query), or write %3F for a literal '?'")
		case depth == 0 && (c == ' ' || c == '\t'):
			return i + 1, errors.New("a space in the path, which ServeMux matches as a space in the request's: two patterns in one? give each on its own; write %20 for a literal space")
		case depth == 0 && c == '#':
			return i + 1, errors.New("'#' starts a fragment, which a request never sends: leave it out, or write %23 for a literal '#'")
		}
	}
	return 0, nil
}
