package routepath

import "strings"

// escapedColon is gin's and echo's escape of a literal colon in a route
// template ("/v1/books\:batchGet" serves "/v1/books:batchGet"). chi and
// ServeMux have no such escape: to them it is a backslash and a colon.
const escapedColon = `\:`

// Unescape returns the template p with each escaped colon a colon, as
// gin reports its template (FullPath: "/v1/books:batchGet" for
// "/v1/books\:batchGet"), and whether p holds one.
func Unescape(p string) (string, bool) {
	if !strings.Contains(p, escapedColon) {
		return p, false
	}
	return strings.ReplaceAll(p, escapedColon, ":"), true
}

// wildcard returns the index in the segment s of the first ':', '*' or
// '{' that may start a parameter: a colon escaped with a backslash is
// text to gin and echo. -1 for none.
func wildcard(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '{':
			return i
		case ':':
			if i == 0 || s[i-1] != '\\' {
				return i
			}
		}
	}
	return -1
}
