package keyfunc

import (
	"iter"
	"net/netip"
	"strings"

	"github.com/floodgate-go/floodgate/internal/httpsyntax"
)

// forwardedEntries yields, for each element of the RFC 7239 Forwarded header
// lines merged in order, the address of its for= parameter, from the
// right-most element to the left-most one. An element is usable only when it
// has exactly one for= parameter naming an IP address: "unknown", obfuscated
// identifiers ("_hidden"), a missing for= and syntax errors are not usable.
// A syntax error swallows the rest of its line into one unusable element, so
// the elements right of it can't be told apart.
func forwardedEntries(lines []string) iter.Seq2[netip.Addr, bool] {
	return func(yield func(netip.Addr, bool) bool) {
		for i := len(lines) - 1; i >= 0; i-- {
			elems := parseForwarded(lines[i])
			for k := len(elems) - 1; k >= 0; k-- {
				if !yield(elems[k].addr, elems[k].ok) {
					return
				}
			}
		}
	}
}

// forwardedFor is the for= node of one Forwarded element.
type forwardedFor struct {
	addr netip.Addr
	ok   bool
}

// parseForwarded parses one Forwarded header line:
//
//	Forwarded         = 1#forwarded-element
//	forwarded-element = [ forwarded-pair ] *( ";" [ forwarded-pair ] )
//	forwarded-pair    = token "=" value
//	value             = token / quoted-string
//
// Whitespace is tolerated around ";" as well as ",", and an unquoted value may
// also hold ':', '[' and ']' (senders write for=192.0.2.1:80 unquoted).
func parseForwarded(line string) []forwardedFor {
	var out []forwardedFor
	i := 0
	for {
		f, next, ok := parseForwardedElement(line, i)
		if !ok {
			return append(out, forwardedFor{})
		}
		out = append(out, f)
		if next >= len(line) {
			return out
		}
		i = next + 1 // past the ','
	}
}

// parseForwardedElement parses the element starting at s[i]. It returns the
// element's for= node and the index of the ',' ending it (or len(s)); ok is
// false on a syntax error.
func parseForwardedElement(s string, i int) (f forwardedFor, next int, ok bool) {
	var node string
	fors := 0
	for {
		i = skipOWS(s, i)
		if i < len(s) && s[i] != ';' && s[i] != ',' {
			start := i
			for i < len(s) && httpsyntax.IsTchar(s[i]) {
				i++
			}
			name := s[start:i]
			if name == "" || i >= len(s) || s[i] != '=' {
				return forwardedFor{}, 0, false
			}
			var v string
			if v, i, ok = parseForwardedValue(s, i+1); !ok {
				return forwardedFor{}, 0, false
			}
			if strings.EqualFold(name, "for") {
				fors++
				node = v
			}
			i = skipOWS(s, i)
		}
		if i >= len(s) || s[i] == ',' {
			break
		}
		if s[i] != ';' {
			return forwardedFor{}, 0, false
		}
		i++
	}
	if fors == 1 {
		f.addr, f.ok = parseForwardedNode(node)
	}
	return f, i, true
}

// parseForwardedValue parses a token or a quoted string at s[i] and returns
// it unquoted with the index past it.
func parseForwardedValue(s string, i int) (string, int, bool) {
	if i < len(s) && s[i] == '"' {
		var b []byte
		for i++; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '"':
				return string(b), i + 1, true
			case c == '\\':
				i++
				if i >= len(s) || !isQuotedText(s[i]) && s[i] != '"' && s[i] != '\\' {
					return "", 0, false
				}
				b = append(b, s[i])
			case isQuotedText(c):
				b = append(b, c)
			default:
				return "", 0, false
			}
		}
		return "", 0, false // unterminated
	}
	start := i
	for i < len(s) && (httpsyntax.IsTchar(s[i]) || s[i] == ':' || s[i] == '[' || s[i] == ']') {
		i++
	}
	return s[start:i], i, i > start
}

// isQuotedText reports whether c may appear unescaped in a quoted string.
func isQuotedText(c byte) bool {
	return c == '\t' || c >= 0x20 && c != 0x7f && c != '"' && c != '\\'
}

func skipOWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// parseForwardedNode parses a for= node: an IP address with an optional port;
// "unknown" and obfuscated identifiers are not usable.
func parseForwardedNode(v string) (netip.Addr, bool) {
	if v == "" || v[0] == '_' || strings.EqualFold(v, "unknown") {
		return netip.Addr{}, false
	}
	return parseNode(v, true)
}
