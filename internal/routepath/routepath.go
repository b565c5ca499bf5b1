// Package routepath holds the normalisations under which routers reach the
// same handler with different requests: method case, path cleaning,
// trailing slashes and path case. floodgate's per-route selection tries
// them when a request matches no route as it is, so that no variant of a
// limited route's request gets a bucket of its own.
package routepath

import (
	"bytes"
	"strings"
)

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

// Split splits a ServeMux pattern into its method as written ("" for
// none) and the rest, its host and path, at byte at of p: the method is
// the first word, before a space or a tab, when it holds no '/'.
func Split(p string) (method, rest string, at int) {
	rest = strings.TrimLeft(p, " \t")
	if i := strings.IndexAny(rest, " \t"); i >= 0 && !strings.Contains(rest[:i], "/") {
		method, rest = rest[:i], strings.TrimLeft(rest[i:], " \t")
	}
	return method, rest, len(p) - len(rest)
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
// It allocates twice the length of p at most, nothing when p is clean:
// its cost stays linear in the path a request chooses, however many
// segments it holds.
func Clean(p string) string {
	if p == "" {
		return "/"
	}
	if clean(p) {
		return p
	}
	buf := make([]byte, 0, len(p)+1)
	i := 0
	if p[0] == '/' {
		i = 1
	}
	var last string
	for {
		j := strings.IndexByte(p[i:], '/')
		seg := p[i:]
		if j >= 0 {
			seg = p[i : i+j]
		}
		switch seg {
		case "", ".":
		case "..":
			if k := bytes.LastIndexByte(buf, '/'); k >= 0 {
				buf = buf[:k]
			}
		default:
			buf = append(buf, '/')
			buf = append(buf, seg...)
		}
		last = seg
		if j < 0 {
			break
		}
		i += j + 1
	}
	if len(buf) == 0 {
		return "/"
	}
	if last == "" || last == "." || last == ".." {
		buf = append(buf, '/')
	}
	return string(buf)
}

// clean reports whether Clean(p) is p: p starts with a slash, and no
// segment but the last is empty, none is "." or "..".
func clean(p string) bool {
	if p[0] != '/' {
		return false
	}
	for i := 0; i < len(p); {
		j := strings.IndexByte(p[i+1:], '/')
		seg := p[i+1:]
		if j >= 0 {
			seg = p[i+1 : i+1+j]
		}
		switch {
		case seg == "." || seg == "..":
			return false
		case seg == "" && j >= 0:
			return false // "//"
		}
		if j < 0 {
			return true
		}
		i += j + 1
	}
	return true
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
