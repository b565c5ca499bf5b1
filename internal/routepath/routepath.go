// Package routepath holds the normalisations under which routers reach the
// same handler with different requests: method case, path cleaning,
// trailing slashes and path case. floodgate's per-route selection tries
// them when a request matches no route as it is, so that no variant of a
// limited route's request gets a bucket of its own.
package routepath

import "strings"

// Method returns m in upper case (ASCII), without allocating when it
// already is.
func Method(m string) string {
	for i := 0; i < len(m); i++ {
		if 'a' <= m[i] && m[i] <= 'z' {
			return strings.ToUpper(m)
		}
	}
	return m
}

// Variants returns the paths other routers may serve p with, to try in
// order when p itself matches no route: p cleaned, cleaned with its
// trailing slash toggled, cleaned in lower case, and that with its
// trailing slash toggled. Variants equal to p or to an earlier variant are
// "".
func Variants(p string) [4]string {
	c := Clean(p)
	l := strings.ToLower(c)
	v := [4]string{c, ToggleSlash(c), l, ToggleSlash(l)}
	for i := range v {
		if v[i] == p {
			v[i] = ""
			continue
		}
		for j := 0; j < i; j++ {
			if v[j] == v[i] {
				v[i] = ""
				break
			}
		}
	}
	return v
}

// Clean returns p with empty, "." and ".." segments resolved and a
// trailing slash kept, as net/http's ServeMux cleans paths ("" is "/").
func Clean(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	segs := strings.Split(p[1:], "/")
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		switch s {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
		}
	}
	c := "/" + strings.Join(out, "/")
	if last := segs[len(segs)-1]; (last == "" || last == "." || last == "..") && c != "/" {
		c += "/"
	}
	return c
}

// ToggleSlash removes p's trailing slash, or adds one; "/" stays "/".
func ToggleSlash(p string) string {
	switch {
	case p == "/" || p == "":
		return "/"
	case strings.HasSuffix(p, "/"):
		return p[:len(p)-1]
	}
	return p + "/"
}
