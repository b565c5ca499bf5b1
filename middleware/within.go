package middleware

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/floodgate-go/floodgate/internal/routepath"
)

// servedPrefix returns the start ("/admin/", "/users/{}/files/") of every
// path the pattern that serves a request matches: its template when an
// adapter gives one, else the application's ServeMux pattern (r.Pattern,
// the argument pattern), without its method and host, up to its last
// slash or catch-all; each segment holding a wildcard or a parameter is
// "{}", which any one segment matches (see under), even an empty one. ""
// when that says nothing narrower than "/", or there is none.
//
// A path variant (see routepath.Variants) that does not start with it
// names a route whose handler the request does not reach: the router has
// already given it to the handler of that pattern. It arises from a
// decoded path whose encoded dot segments ("/admin/%2E%2E/healthz") are
// cleaned away, which ServeMux, chi and echo, routing the escaped path,
// never do: such a request is served by the subtree's handler ("/admin/")
// and must be counted there, not on a route of the client's choosing
// ("/healthz"). The segments after a wildcard bind as tightly: a request
// served by "GET /users/{id}/files/{p...}" ("/users/x/files/%2E%2E/%2E%2E/y")
// is not counted on "GET /users/{id}" ("/users/y").
func servedPrefix(pattern, template string) string {
	p := template
	if p == "" {
		key, _, err := parsePattern(pattern)
		if err != nil {
			return ""
		}
		p = key.path
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return ""
		}
		p = p[i:] // drop the host
	} else if strings.HasPrefix(p, "/") {
		p = routepath.MuxPath(p) // gin's ":id", echo's "*", chi's "{id:[0-9]+}"
	}
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	if i := strings.Index(p, "...}"); i >= 0 {
		p = p[:i] // a catch-all ends what the pattern fixes
	}
	p = p[:strings.LastIndexByte(p, '/')+1]
	if len(p) <= 1 {
		return ""
	}
	segs := strings.Split(unescapeSegments(p), "/")
	for i, s := range segs {
		if strings.ContainsAny(s, "{:*") {
			// a wildcard, or a parameter MuxPath leaves as text (echo's
			// "file.:ext"): any segment, as before its first such sign
			segs[i] = anySegment
		}
	}
	return strings.Join(segs, "/")
}

// anySegment stands for a wildcard's segment in servedPrefix's result.
const anySegment = "{}"

// under reports whether the path p, with a slash added, starts with
// within (see servedPrefix), a segment "{}" of within matching any
// segment; without regard to case when fold.
func under(p, within string, fold bool) bool {
	if within == "" {
		return true
	}
	s := p + "/"
	if !strings.Contains(within, anySegment) {
		if fold {
			return hasPrefixFold(s, within)
		}
		return strings.HasPrefix(s, within)
	}
	if s[0] != '/' {
		return false
	}
	s, w := s[1:], within[1:]
	for w != "" {
		want, wrest, _ := strings.Cut(w, "/")
		seg, rest, ok := strings.Cut(s, "/")
		switch {
		case !ok:
			return false
		case want == anySegment:
			// any segment, even empty: ServeMux matches a wildcard to the
			// empty segment of a CONNECT's path, which it does not clean
		case fold && !strings.EqualFold(seg, want), !fold && seg != want:
			return false
		}
		s, w = rest, wrest
	}
	return true
}

// staysWithin reports whether the path of u, as ServeMux matches it for a
// request of method (its escaped form, in which encoded dots are no dot
// segments, cleaned but for a CONNECT request, each segment then unescaped
// as ServeMux compares it with a pattern's), starts with within (see
// servedPrefix), or within is "". A path that leaves it ("/admin/../x" for
// gin's "/admin/*p", which gin serves as it comes) is no guide to the route
// of the handler the request reaches: ServeMux would route it elsewhere.
func staysWithin(u *url.URL, method, within string) bool {
	if within == "" {
		return true
	}
	p := u.EscapedPath()
	if method != http.MethodConnect {
		p = routepath.Clean(p)
	}
	return under(unescapeSegments(p), within, false)
}

// describes reports whether within (see servedPrefix) may be the literal
// start of the pattern that matched u's path: the path, escaped (each
// segment unescaped as ServeMux compares it) or decoded (as gin routes it),
// as it comes or cleaned, starts with it in some case. A path that does not was rewritten
// after the router matched it (http.StripPrefix behind an outer ServeMux's
// "/api/", which leaves r.Pattern as it was): no route of the handler
// that now serves it lies under within, and within must not keep its
// routes out.
func describes(u *url.URL, within string) bool {
	if within == "" {
		return true
	}
	esc := unescapeSegments(u.EscapedPath())
	for _, p := range [...]string{esc, routepath.Clean(esc), u.Path, routepath.Clean(u.Path)} {
		if under(p, within, true) {
			return true
		}
	}
	return false
}

// hasPrefixFold is strings.HasPrefix without regard to case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// unescapeSegments returns the escaped path p with each segment unescaped
// as ServeMux unescapes it to match a pattern's literal segment ("/%61dmin/"
// is "/admin/"), but for a segment that would then hold a slash or be a
// dot segment ("%2F", "%2E%2E"), which stays as it is: ServeMux neither
// splits nor resolves it.
func unescapeSegments(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if !strings.Contains(s, "%") {
			continue
		}
		if u, err := url.PathUnescape(s); err == nil && u != "." && u != ".." && !strings.Contains(u, "/") {
			segs[i] = u
		}
	}
	return strings.Join(segs, "/")
}

// templateRequest returns a copy of r whose path is the route template
// (an adapter's, in a router's syntax) in ServeMux's syntax, each
// parameter a wildcard of its own name ("/users/{p1}" for "/users/:id"),
// for ServeMux to match to the route written at that template in any
// syntax; false without a template.
func templateRequest(r *http.Request, template string) (*http.Request, bool) {
	if !strings.HasPrefix(template, "/") || r.URL == nil {
		return nil, false
	}
	c := *r
	u := *r.URL
	u.Path, u.RawPath = routepath.MuxPath(template), ""
	c.URL = &u
	return &c, true
}
