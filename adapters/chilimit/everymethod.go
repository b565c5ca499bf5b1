package chilimit

import (
	"strings"

	"github.com/floodgate-go/floodgate/internal/routemethods"
)

// everyMethod lists net/http's methods, which chi routes: those reaching
// a handler whose router the root cannot list.
const everyMethod = "CONNECT,DELETE,GET,HEAD,OPTIONS,PATCH,POST,PUT,TRACE"

// everyMethodWith returns everyMethod with method, r's, added when it is
// not net/http's: chi routes a method registered with chi.RegisterMethod
// to a handler of every method as it routes GET, and such a request
// reaching a handler whose router the root cannot list was limited by
// none of the routes guarding it.
func everyMethodWith(method string) string {
	if method == "" || routemethods.Standard(method) || strings.ContainsAny(method, ", ") {
		return everyMethod
	}
	return everyMethod + "," + method
}
