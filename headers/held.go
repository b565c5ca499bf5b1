package headers

import (
	"slices"
	"strings"
)

// The grammar of the values Combine merges with: what this package
// writes, in the draft of the Writer merging. A held value of another
// shape (another draft's, another library's, one a handler wrote, a
// value cut or padded) is not merged with, lest the field written be
// one no parser of the draft reads: it is replaced, as Write replaces
// it.

// listShape is the items a list field holds: their bare item, a string
// (draft 11) or an integer (drafts 6 and 7), and their parameters, each
// an integer (its least value in min) but pk, an sf-binary.
type listShape struct {
	str      bool
	required string           // the parameter every item has
	min      map[string]int64 // the parameters an item may have
}

var (
	policy11Shape = listShape{str: true, required: "q", min: map[string]int64{"q": 0, "w": 1, "pk": -1}}
	rate11Shape   = listShape{str: true, required: "r", min: map[string]int64{"r": 0, "t": 0, "pk": -1}}
	policy67Shape = listShape{required: "w", min: map[string]int64{"w": 1}}
)

// validList reports whether v is a non-empty list of items of shape s,
// its members separated by a comma and optional spaces, as lines of one
// field joined are.
func validList(v string, s *listShape) bool {
	// A structured field starts with no HTAB (RFC 8941 discards leading
	// SP only); it may end with OWS.
	v = strings.TrimRight(strings.TrimLeft(v, " "), " \t")
	if v == "" {
		return false
	}
	for {
		n := validItem(v, s)
		if n < 0 {
			return false
		}
		v = strings.TrimLeft(v[n:], " \t")
		if v == "" {
			return true
		}
		if v[0] != ',' {
			return false
		}
		v = strings.TrimLeft(v[1:], " \t")
		if v == "" {
			return false
		}
	}
}

// validItem returns the length of the item of shape s v starts with, or
// -1.
func validItem(v string, s *listShape) int {
	var n int
	if s.str {
		if n = sfStringEnd(v); n < 0 || v[0] != '"' || !sfStringChars(v[1:n-1]) {
			return -1
		}
	} else if n = digits(v); n == 0 || n > 15 {
		return -1
	}
	var seen [4]string // the parameters read: no shape has more
	k := 0
	for n < len(v) && v[n] == ';' {
		key, val, _ := strings.Cut(v[n+1:], "=")
		lo, known := s.min[key]
		if !known || k == len(seen) || slices.Contains(seen[:k], key) || val == "" {
			return -1
		}
		seen[k], k = key, k+1
		n += 1 + len(key) + 1
		var m int
		if lo < 0 { // an sf-binary
			m = binaryEnd(val)
		} else if m = digits(val); m > 15 {
			m = -1
		} else if x, _ := parseInt(val[:m]); m > 0 && x < lo {
			m = -1
		}
		if m <= 0 {
			return -1
		}
		n += m
	}
	if !slices.Contains(seen[:k], s.required) {
		return -1
	}
	return n
}

// sfStringChars reports whether the inside of an sf-string, its quotes
// cut, holds only printable ASCII, a quote or backslash escaped.
func sfStringChars(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			if i++; i == len(s) || s[i] != '"' && s[i] != '\\' {
				return false
			}
		case c == '"' || c < 0x20 || c > 0x7e:
			return false
		}
	}
	return true
}

// binaryEnd returns the length of the sf-binary v starts with, or -1.
// Its content must be base64 as Write writes it (RFC 8941's, padded, pad
// bits zero): a held value whose content does not decode (":0:") is one
// no strict parser reads, and is replaced.
func binaryEnd(v string) int {
	if v == "" || v[0] != ':' {
		return -1
	}
	for i := 1; i < len(v); i++ {
		if v[i] == ':' {
			if !strictBase64(v[1:i]) {
				return -1
			}
			return i + 1
		}
	}
	return -1
}

// strictBase64 reports whether enc decodes as padded standard base64
// with zero pad bits (encoding/base64's StdEncoding.Strict), without
// decoding it.
func strictBase64(enc string) bool {
	n := len(enc)
	if n%4 != 0 {
		return false
	}
	pad := 0
	if n > 0 && enc[n-1] == '=' {
		pad = 1
		if enc[n-2] == '=' {
			pad = 2
		}
	}
	for i := 0; i < n-pad; i++ {
		if base64Value(enc[i]) < 0 {
			return false
		}
	}
	switch pad {
	case 1: // 3 characters, 18 bits for 2 bytes: the last 2 are zero
		return base64Value(enc[n-2])&0x3 == 0
	case 2: // 2 characters, 12 bits for 1 byte: the last 4 are zero
		return base64Value(enc[n-3])&0xf == 0
	}
	return true
}

// base64Value returns the value of the standard base64 digit c, or -1
// ('=' included).
func base64Value(c byte) int {
	switch {
	case 'A' <= c && c <= 'Z':
		return int(c - 'A')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 26
	case '0' <= c && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}

// digits returns how many decimal digits v starts with.
func digits(v string) int {
	n := 0
	for n < len(v) && '0' <= v[n] && v[n] <= '9' {
		n++
	}
	return n
}

// validDict7 reports whether v is a draft 7 RateLimit dictionary as this
// package writes it: "limit=L, remaining=R, reset=S".
func validDict7(v string) bool {
	v = strings.TrimLeft(v, " ") // (no leading HTAB: see validList)
	for i, k := range [...]string{"limit=", "remaining=", "reset="} {
		if i > 0 {
			v = strings.TrimLeft(v, " \t")
		}
		if !strings.HasPrefix(v, k) {
			return false
		}
		v = v[len(k):]
		n := digits(v)
		if n == 0 || n > 15 {
			return false
		}
		v = strings.TrimLeft(v[n:], " \t")
		if k != "reset=" {
			if v == "" || v[0] != ',' {
				return false
			}
			v = v[1:]
		}
	}
	return v == ""
}
