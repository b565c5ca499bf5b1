package login

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/floodgate-go/floodgate/internal/routepath"
)

// redirectsBack reports whether a response of status with headers h is a
// redirect that cannot be told from a failed login: one without a usable
// Location, or one back to path, the login request's own path (in any
// case, cleaned, with or without a trailing slash, whatever its query).
// path "" (unknown) counts only the redirects without a Location.
func redirectsBack(h http.Header, status int, path string) bool {
	if status < 300 || status > 399 {
		return false
	}
	loc := h.Get("Location")
	if loc == "" {
		return true
	}
	u, err := url.Parse(loc)
	if err != nil {
		return true
	}
	if path == "" {
		return false
	}
	base := &url.URL{Path: path}
	to := base.ResolveReference(u).Path
	return strings.EqualFold(trimSlash(routepath.Clean(to)), trimSlash(routepath.Clean(path)))
}

func trimSlash(p string) string {
	if len(p) > 1 {
		return strings.TrimSuffix(p, "/")
	}
	return p
}
