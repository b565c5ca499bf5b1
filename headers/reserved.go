package headers

import (
	"net/http"
	"strings"
)

// reservedNames are the fields, in canonical form, that a rate-limit field
// may not be renamed to: each has a meaning of its own to HTTP (framing,
// connections, representation), to browsers (cookies, redirects, caching,
// CORS, security policies) or to the servers and gateways in front (CGI's
// Status, nginx's and others' internal redirects and rate limits), which a
// number or a list of limits written in it would break or turn against
// the service: "Content-Length: 100" cuts every response short.
var reservedNames = map[string]bool{
	"Accept-Ranges": true, "Age": true, "Allow": true, "Alt-Svc": true,
	"Authentication-Info": true, "Authorization": true, "Cache-Control": true,
	"Clear-Site-Data": true, "Connection": true, "Cookie": true, "Date": true,
	"Etag": true, "Expect": true, "Expires": true, "Host": true,
	"Keep-Alive": true, "Last-Modified": true, "Link": true, "Location": true,
	"Origin": true, "Permissions-Policy": true, "Pragma": true, "Referer": true,
	"Referrer-Policy": true, "Refresh": true, "Server": true, "Server-Timing": true,
	"Set-Cookie": true, "Set-Cookie2": true, "Status": true,
	"Strict-Transport-Security": true, "Te": true, "Timing-Allow-Origin": true,
	"Trailer": true, "Transfer-Encoding": true, "Upgrade": true, "Vary": true,
	"Via": true, "Warning": true, "Www-Authenticate": true,
	"X-Content-Type-Options": true, "X-Frame-Options": true,
	"X-Sendfile": true, "X-Lighttpd-Send-File": true, "X-Xss-Protection": true,
}

// reservedPrefixes are the families of fields reserved as reservedNames
// are: the representation's (Content-Length, Content-Type, and
// Content-Security-Policy), conditional requests', CORS's, the proxies'
// (Proxy-Authenticate, Proxy-Connection), the browsers' (Sec-), the
// cross-origin policies' and nginx's (X-Accel-Redirect, X-Accel-Limit-Rate).
var reservedPrefixes = []string{"Content-", "If-", "Access-Control-", "Proxy-", "Sec-", "Cross-Origin-", "X-Accel-"}

// reserved reports whether the canonical name is one a rate-limit field
// may not take (see reservedNames).
func reserved(name string) bool {
	if reservedNames[name] {
		return true
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// retryAfter is Retry-After's name: a field renamed to it would have
// clients wait its value in seconds.
var retryAfter = http.CanonicalHeaderKey(defaultNames[iRetryAfter])
