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
//
// Elements are split off from the right (see lastForwardedElement) and
// parsed only as they are reached, so that what lies left of the client's
// element, the part of the header the client wrote itself, is never read:
// an unterminated quote or any garbage there cannot spoil the elements the
// proxies appended after it on the same line.
func forwardedEntries(lines []string) iter.Seq2[netip.Addr, bool] {
	return func(yield func(netip.Addr, bool) bool) {
		for i := len(lines) - 1; i >= 0; i-- {
			line := lines[i]
			for {
				elem, rest, more := lastForwardedElement(line)
				f := parseForwardedOne(elem)
				if !yield(f.addr, f.ok) {
					return
				}
				if !more {
					break
				}
				line = rest
			}
		}
	}
}

// forwardedFor is the for= node of one Forwarded element.
type forwardedFor struct {
	addr netip.Addr
	ok   bool
}

// lastForwardedElement splits line at its last comma outside a quoted
// string: elem is what follows it, rest what precedes it, and more whether
// there was one. Reading from the right, a '"' outside a quoted string ends
// one, and a '"' inside it begins it unless an odd run of backslashes
// escapes it: exact for the well-formed elements proxies write. Whatever a
// client wrote left of them is only reached if the walk gets there.
func lastForwardedElement(line string) (elem, rest string, more bool) {
	quoted := false
	for i := len(line) - 1; i >= 0; i-- {
		switch line[i] {
		case '"':
			if !quoted {
				quoted = true
				continue
			}
			n := 0
			for j := i - 1; j >= 0 && line[j] == '\\'; j-- {
				n++
			}
			quoted = n%2 == 1
		case ',':
			if !quoted {
				return line[i+1:], line[:i], true
			}
		}
	}
	return line, "", false
}

// parseForwardedOne parses one element, split off by lastForwardedElement:
// it must be well-formed to its end.
func parseForwardedOne(elem string) forwardedFor {
	f, next, ok := parseForwardedElement(elem, 0)
	if !ok || next != len(elem) {
		return forwardedFor{}
	}
	return f
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
