package routepath

import (
	"net/http"

	"github.com/floodgate-go/floodgate/internal/httpsyntax"
)

// Preflight returns the method a CORS preflight announces, upper case, and
// whether r is a preflight: OPTIONS with an Origin and a valid
// Access-Control-Request-Method. The middleware and the router adapters
// tell preflights apart by it alike.
func Preflight(r *http.Request) (string, bool) {
	if !IsOptions(r.Method) || len(r.Header["Origin"]) == 0 {
		return "", false
	}
	v := r.Header["Access-Control-Request-Method"]
	if len(v) != 1 || !httpsyntax.IsToken(v[0]) {
		return "", false
	}
	return Method(v[0]), true
}

// IsOptions reports whether method is OPTIONS in any ASCII case, as
// [Method] reads methods (Unicode folding would take "OPTIONſ" for one),
// without allocating.
func IsOptions(method string) bool {
	const want = http.MethodOptions
	if len(method) != len(want) {
		return false
	}
	for i := 0; i < len(want); i++ {
		if c := method[i]; c != want[i] && c != want[i]+'a'-'A' {
			return false
		}
	}
	return true
}

// PreflightPattern returns the pattern a router adapter sets as r.Pattern
// while r, which reaches a handler at template by its own method, is
// decided, when the router lists no other method reaching that handler:
// for a CORS preflight "OPTIONS template", so that the middleware counts
// it as the OPTIONS request it is (in the client's bucket, not a
// preflight's of its own: see middleware.Preflight); "" for any other
// request.
func PreflightPattern(r *http.Request, template string) string {
	if _, ok := Preflight(r); !ok {
		return ""
	}
	return http.MethodOptions + " " + template
}
