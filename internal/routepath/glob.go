package routepath

import (
	"regexp/syntax"
	"slices"
	"strings"
)

// Glob matches request paths as gin and echo match a route template whose
// parameter or catch-all starts inside a segment, after text:
// "/v:version/x" serves "/v2/x" and "/v/x", echo's "/static*" serves
// "/static", "/staticfoo" and "/static/a/b". ServeMux reads such a
// segment as a literal ("/v1/books:batchGet"), which matches none of
// those paths, so a limiter that does not know the template (one mounted
// before the router routes) must match them by the template's own rules.
// It matches generously, never less than the routers do: a parameter
// may be empty, a pattern ending in a slash holds the paths below it.
// The zero Glob matches nothing.
type Glob struct {
	host string // lower case, without a trailing dot; "" for any
	segs []globSeg
	// slash: the template ends in a slash, its last segment the paths
	// below it (see Below).
	slash bool
}

// globSeg is a segment of a Glob's pattern: text, what follows it in the
// segment, and, for a prefixParam, the text that ends the segment (chi's
// ".png" in "{name}.png").
type globSeg struct {
	text   string
	kind   segKind
	suffix string
	// approx: chi's braces beside text, matched generously (any value,
	// an empty one too, around the text chi needs; a regexp unread).
	approx bool
	// mid: for chi's braces, the text between them, which chi needs in
	// that order ("x" in "{w}x{h}.png").
	mid []string
	// leaf: gin's and echo's parameter (":id") ending the template,
	// which echo lets take the rest of the path, slashes too, when no
	// route goes below it ("/v:version" serves "/v1/a/b").
	leaf bool
}

// like reports whether a and b match alike: the same text, kind and
// suffix, whatever the router's syntax.
func (a globSeg) like(b globSeg) bool {
	return a.text == b.text && a.kind == b.kind && a.suffix == b.suffix && slices.Equal(a.mid, b.mid)
}

// matches reports whether the segment s matches seg, a prefixParam: its
// text, then anything holding its text between braces, then its suffix.
func (seg globSeg) matches(s string) bool {
	n := len(seg.text) + len(seg.suffix)
	return len(s) >= n && strings.HasPrefix(s, seg.text) && strings.HasSuffix(s, seg.suffix) &&
		(len(seg.mid) == 0 || hasMid(s[len(seg.text):len(s)-len(seg.suffix)], seg.mid))
}

// midText returns the text between the top-level braces of the segment
// s, in order ("x" for "{w}x{h}.png"; none for "v{version}").
func midText(s string) []string {
	var mid []string
	depth, end := 0, -1 // end: just past the last closing brace
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if depth == 0 && end >= 0 && i > end {
				mid = append(mid, s[end:i])
			}
			depth++
		case '}':
			if depth--; depth == 0 {
				end = i + 1
			}
		}
	}
	return mid
}

// hasMid reports whether s holds each of mid, in order, apart.
func hasMid(s string, mid []string) bool {
	for _, m := range mid {
		i := strings.Index(s, m)
		if i < 0 {
			return false
		}
		s = s[i+len(m):]
	}
	return true
}

type segKind uint8

const (
	literal     segKind = iota // text, the whole segment
	prefixParam                // text, then anything up to the next slash
	wholeParam                 // a whole segment, anything
	prefixRest                 // text, then anything to the end of the path
	rest                       // anything to the end of the path, slashes too
)

// NewGlob returns the Glob of the path of a route template, with its host
// ("api.example.com/v:version/x"), and whether it has a segment that
// mixes text and a parameter, which [MuxPath] cannot express: a ':' or
// '*' after text, gin's and echo's parameter or catch-all ("v:version",
// "static*"), which MuxPath leaves a literal, or chi's braces beside text
// ("v{version}", "{name}.{ext}"), which MuxPath widens to the whole
// segment (see [Glob.Widened]), or echo's parameter named "" (":"),
// which MuxPath leaves a literal too, or gin's and echo's escaped colon
// ("/v1/books\:batchGet", a colon to them), which MuxPath leaves a
// backslash and a colon, as chi reads it. Templates without one are
// matched by MuxPath, and NewGlob reports false for them.
func NewGlob(p string) (Glob, bool) {
	host, path := "", p
	if i := strings.IndexByte(p, '/'); i > 0 {
		host, path = p[:i], p[i:]
	} else if i < 0 {
		return Glob{}, false
	}
	var g Glob
	inside := false
	segs := strings.Split(path[1:], "/")
	for n, s := range segs {
		var seg globSeg
		i := wildcard(s)
		switch {
		case s == "{$}":
			seg = globSeg{kind: literal}
		case s == "" && n == len(segs)-1:
			seg = globSeg{kind: rest} // a trailing slash: the paths below it
			g.slash = true
		case s != "" && (s[0] == ':' || s[0] == '*') || wholeBraces(s):
			seg = globSeg{kind: wholeParam}
			// echo takes even ":" for a parameter, which MuxPath leaves a
			// literal.
			inside = inside || s == ":"
			if s[0] == '*' || strings.HasSuffix(s, "...}") {
				seg.kind = rest
			}
		case i >= 0 && (i > 0 || param(s)):
			// Text and a parameter: the text before it, then anything,
			// then for chi's braces the text after the last one.
			text, _ := Unescape(s[:i])
			seg, inside = globSeg{text: text, kind: prefixParam}, true
			if j := strings.LastIndexByte(s, '}'); s[i] == '{' && j > i {
				seg.suffix = s[j+1:]
			}
			if strings.ContainsRune(s, '*') || strings.Contains(s, "...}") || regexpSpans(s) {
				// A catch-all, or a chi regexp that takes a slash
				// ("{name:.+}.png" serves "/a/b.png"): the rest.
				seg = globSeg{text: text, kind: prefixRest}
			}
			seg.approx = param(s)
			if seg.approx && seg.kind == prefixParam {
				seg.mid = midText(s)
			}
		default:
			// gin's and echo's escaped colon ("books\:batchGet") is a
			// colon, which ServeMux reads as a backslash and a colon
			// (chi's reading).
			text, escaped := Unescape(s)
			seg, inside = globSeg{text: text, kind: literal}, inside || escaped
		}
		if n == len(segs)-1 && (seg.kind == wholeParam && s[0] == ':' || seg.kind == prefixParam && s[i] == ':') {
			seg.leaf = true
		}
		g.segs = append(g.segs, seg)
		if seg.kind >= prefixRest {
			break // the rest of the path is matched
		}
	}
	if !inside {
		return Glob{}, false
	}
	g.host = strings.TrimSuffix(strings.ToLower(host), ".")
	return g, true
}

// Widened reports whether [MuxPath] widens g's template: a segment of
// text and chi's braces ("v{version}", "{name}.{ext}") becomes a wildcard
// matching any segment ("/abc"), which the router does not serve by that
// template.
func (g Glob) Widened() bool { return slices.ContainsFunc(g.segs, approx) }

// wholeBraces reports whether the segment s is one parameter in braces,
// nested ones counted ("{id}", "{id:[0-9]{2}}"), not text beside one.
func wholeBraces(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i == len(s)-1 && s[0] == '{'
			}
		}
	}
	return false
}

// Match reports whether a request for host and path reaches g's route:
// host compared without case and trailing dot when g names one, path
// compared segment by segment as written (decoded or not, as the caller
// reads it).
func (g Glob) Match(host, path string) bool {
	ok, _ := g.MatchEnd(host, path)
	return ok
}

// MatchEnd is [Glob.Match], and reports too whether the parameter ending
// g's template takes nothing of path, which ends there: gin and echo
// serve "/ab" by "/a:y", not by "/ab:x" with an empty parameter, and
// such a match outranks no other (see [Glob.Outranks]).
func (g Glob) MatchEnd(host, path string) (ok, emptyEnd bool) {
	if len(g.segs) == 0 || path == "" || path[0] != '/' {
		return false, false
	}
	if g.host != "" && strings.TrimSuffix(strings.ToLower(host), ".") != g.host {
		return false, false
	}
	path = path[1:]
	for i, seg := range g.segs {
		s, after, more := strings.Cut(path, "/")
		if done, ok, empty := seg.step(s, path, more, i == len(g.segs)-1); done {
			return ok, empty
		}
		path = after
	}
	return false, false
}

// step matches seg, the last of its Glob's when last, against the segment
// s of a path (from: the path from s on; more: whether a segment follows
// s). done says that ok and emptyEnd are the Glob's answer (see
// [Glob.MatchEnd]); else the next segment is matched.
func (seg globSeg) step(s, from string, more, last bool) (done, ok, emptyEnd bool) {
	switch seg.kind {
	case rest:
		return true, true, false
	case prefixRest:
		return true, strings.HasPrefix(from, seg.text), false
	case literal:
		if s != seg.text {
			return true, false, false
		}
	case prefixParam:
		if !seg.matches(s) {
			return true, false, false
		}
	}
	if last {
		empty := !more && seg.kind >= prefixParam && len(s) == len(seg.text)+len(seg.suffix)
		return true, !more || seg.leaf, empty
	}
	return !more, false, false
}

// Below reports whether g, a template ending in a slash, matches path
// (for host) by a path below that slash alone: gin, echo and chi serve the
// slash itself by such a template ("/v1/" by "/v:version/"), not the
// paths below it ("/v1/items/"), which g matches generously, as ServeMux
// does. False for a template of another end, or a path g does not match.
func (g Glob) Below(host, path string) bool {
	if !g.slash || !g.Match(host, path) {
		return false
	}
	return strings.Count(path, "/") > len(g.segs) || !strings.HasSuffix(path, "/")
}

// regexpSpans reports whether the segment s, of text and chi's braces,
// holds a regexp parameter followed by more of the segment whose regexp
// may match a slash: chi then matches it up to the text that follows,
// across segments ("{name:.+}.png" serves "/a/b.png"). A regexp that does
// not parse counts as one that may.
func regexpSpans(s string) bool {
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if depth == 0 {
				start = i
			}
			depth++
		case '}':
			if depth == 0 {
				return false
			}
			if depth--; depth > 0 || i == len(s)-1 {
				continue
			}
			_, re, ok := strings.Cut(s[start+1:i], ":")
			if ok && mayMatchSlash(re) {
				return true
			}
		}
	}
	return false
}

// mayMatchSlash reports whether the regexp re may match a string holding
// a slash: true when it does not parse.
func mayMatchSlash(re string) bool {
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return true
	}
	return slashIn(t)
}

// slashIn reports whether the parsed regexp t has a part that matches a
// slash.
func slashIn(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return true
	case syntax.OpLiteral:
		return slices.Contains(t.Rune, '/')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(t.Rune); i += 2 {
			if t.Rune[i] <= '/' && '/' <= t.Rune[i+1] {
				return true
			}
		}
		return false
	}
	return slices.ContainsFunc(t.Sub, slashIn)
}

// Same reports whether g and t, a router's template without a host,
// have one shape, whatever their parameters' names and syntax: the same
// text, parameters and catch-alls in the same places, and g names no host
// or host (lower case, without a trailing dot).
func (g Glob) Same(t Glob, host string) bool {
	return (g.host == "" || g.host == host) && slices.EqualFunc(g.segs, t.segs, globSeg.like)
}

// Outranks reports whether gin and echo would serve a path both g and o
// match by g's route rather than o's: at the first segment where they
// differ, by the longer text, then by a whole literal before a parameter
// before a catch-all. Neither outranks the other when they are alike,
// nor g when it has chi's braces beside text from there on, which it
// matches generously: chi may serve the path by o's route all the same
// ("/v1/xy" by "/v{a}/{id}", not "/v{a}/{x}-{y}").
func (g Glob) Outranks(o Glob) bool {
	for i := 0; i < len(g.segs) && i < len(o.segs); i++ {
		a, b := g.segs[i], o.segs[i]
		if a.like(b) {
			continue
		}
		if slices.ContainsFunc(g.segs[i:], approx) {
			// g's match there on is generous: chi may serve the path
			// by o's route all the same.
			return false
		}
		if len(a.text) != len(b.text) {
			return len(a.text) > len(b.text)
		}
		return a.kind < b.kind
	}
	return len(g.segs) > len(o.segs) && !slices.ContainsFunc(g.segs[len(o.segs):], approx)
}

// approx reports whether s is matched generously (see globSeg).
func approx(s globSeg) bool { return s.approx }
