package core

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParsePolicy parses a policy named name from one to [MaxLimits] limits in
// the rate syntax (see "Rate syntax" in the package documentation),
// separated by ';', each optionally preceded by its name and ':', as in
// "burst: 10/s burst 20; daily: 10000/day fixed-window". The word shadow
// before a limit makes it a shadow limit ([Limit.Shadow]), as in
// "burst: 10/s; daily: shadow 10000/day fixed-window".
//
// A name is a run of letters, digits, '-', '_' and '.', or any string in
// Go's double-quoted syntax ("\"per user\": 5/min"). A limit without a
// name is named like the policy when it is the only one, and otherwise
// after its period: "second", "minute", "hour", "day", or the period as
// written by String ("15m", "7d"). Names must be unique and valid UTF-8.
//
// Errors are as [ParseAlgorithm]'s, with columns counted in s.
func ParsePolicy(name, s string) (*Policy, error) {
	if !utf8.ValidString(name) {
		return nil, fmt.Errorf("core: policy name %q is not valid UTF-8: %w", name, ErrInvalidConfig)
	}
	type item struct {
		name   string
		named  bool
		shadow bool
		col    int
		text   string // as written, trimmed
		alg    Algorithm
	}
	var items []item
	for i := 0; ; {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		start := i
		it := item{col: start}
		if i < len(s) && s[i] == '"' {
			n, end, err := quotedName(s, i)
			if err != nil {
				return nil, err
			}
			it.name, it.named, i = n, true, end
		}
		end := i + strings.IndexByte(s[i:], ';')
		if end < i {
			end = len(s)
		}
		body := s[i:end]
		if c := strings.IndexByte(body, ':'); c >= 0 {
			if it.named {
				if extra := strings.TrimLeft(body[:c], " \t\r\n"); extra != "" {
					at := i + c - len(extra)
					extra = strings.TrimRight(extra, " \t\r\n")
					return nil, syntaxErr(at, extra, "%q at column %d after the limit name: want ':'", clip(extra), at+1)
				}
			} else {
				n := strings.TrimRight(body[:c], " \t\r\n")
				if !validName(n) {
					return nil, syntaxErr(start, n, "limit name %q at column %d: want letters, digits, '-', '_' and '.', or a double-quoted string", clip(n), start+1)
				}
				it.name, it.named = n, true
			}
			body, i = body[c+1:], i+c+1
		} else if it.named {
			return nil, syntaxErr(start, s[start:i], "limit name %s at column %d: want ':' after it", clip(s[start:i]), start+1)
		}
		if len(items) == MaxLimits {
			return nil, syntaxErr(it.col, strings.TrimRight(s[it.col:end], " \t\r\n"), "limit %d at column %d: a policy has at most %d limits", len(items)+1, it.col+1, MaxLimits)
		}
		if w := strings.TrimLeft(body, " \t\r\n"); strings.HasPrefix(w, shadowWord) &&
			(len(w) == len(shadowWord) || isSpace(w[len(shadowWord)])) {
			skip := len(body) - len(w) + len(shadowWord)
			it.shadow, body, i = true, body[skip:], i+skip
		}
		a, err := parseAlgorithm(body, i, true)
		if err != nil {
			return nil, err
		}
		it.alg, it.text = a, strings.TrimRight(s[start:end], " \t\r\n")
		items = append(items, it)
		if end == len(s) {
			break
		}
		i = end + 1
	}
	limits := make([]Limit, len(items))
	cols := map[string]int{}
	for k, it := range items {
		n := it.name
		if !it.named {
			n = defaultName(name, len(items), it.alg)
		}
		if c, dup := cols[n]; dup {
			how := ""
			if !it.named {
				how = ", named after its period (name each limit, as \"minute: 100/min\")"
			}
			return nil, syntaxErr(it.col, it.text, "duplicate limit name %q at column %d%s: already used at column %d", clip(n), it.col+1, how, c+1)
		}
		cols[n] = it.col
		limits[k] = Limit{Name: n, Algorithm: it.alg, Shadow: it.shadow}
	}
	return NewPolicy(name, limits...)
}

// quotedName reads the double-quoted name starting at s[i] and returns it
// and the index just past its closing quote.
func quotedName(s string, i int) (string, int, *ParseError) {
	j := i + 1
	for j < len(s) && s[j] != '"' {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(s) {
		return "", 0, syntaxErr(i, s[i:], "limit name %q at column %d: want a closing '\"'", clip(s[i:]), i+1)
	}
	n, err := strconv.Unquote(s[i : j+1])
	if err != nil {
		return "", 0, syntaxErr(i, s[i:j+1], "limit name %s at column %d: want a Go double-quoted string", clip(s[i:j+1]), i+1)
	}
	if !utf8.ValidString(n) {
		return "", 0, syntaxErr(i, s[i:j+1], "limit name %s at column %d is not valid UTF-8", clip(s[i:j+1]), i+1)
	}
	return n, j + 1, nil
}

// validName reports whether n is written without quotes.
func validName(n string) bool {
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return n != ""
}

// defaultName is the name a limit written without one gets in a policy
// named policy of n limits.
func defaultName(policy string, n int, a Algorithm) string {
	if n == 1 {
		return policy
	}
	s := a.String()
	s = s[strings.IndexByte(s, '/')+1:]
	if sp := strings.IndexByte(s, ' '); sp >= 0 {
		s = s[:sp]
	}
	switch s {
	case "s":
		return "second"
	case "min":
		return "minute"
	}
	return s
}

// shadowWord, before a limit's rate in a policy, makes it a shadow limit.
const shadowWord = "shadow"
