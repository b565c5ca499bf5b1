package middleware

import "strings"

// servedPrefix returns the literal start ("/admin/") of every path the
// pattern that serves a request matches: its template when an adapter
// gives one, else the application's ServeMux pattern (r.Pattern, the
// argument pattern), without its method and host; "" when that says
// nothing narrower than "/", or there is none.
//
// A path variant (see routepath.Variants) that does not start with it
// names a route whose handler the request does not reach: the router has
// already given it to the handler of that pattern. It arises from a
// decoded path whose encoded dot segments ("/admin/%2E%2E/healthz") are
// cleaned away, which ServeMux, chi and echo, routing the escaped path,
// never do: such a request is served by the subtree's handler ("/admin/")
// and must be counted there, not on a route of the client's choosing
// ("/healthz").
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
	}
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	if i := strings.IndexAny(p, "{:*"); i >= 0 {
		p = p[:i] // the literal part, before the first wildcard
	}
	p = p[:strings.LastIndexByte(p, '/')+1]
	if len(p) <= 1 {
		return ""
	}
	return p
}
