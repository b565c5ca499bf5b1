package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// It guards against a narrowing of the methods that was withdrawn: the
// adapters marked "-" the methods a router routes the path by to another
// route, and each review of the marks found a handler they let through
// uncharged; the marks are gone, and this request is charged again.
//
// sub.HandleFunc("/{page}", h), h a handler of every method serving the
// login page among others, "POST /a/login" at 1 an hour. Mounted behind a
// plain handler (r.Mount("/a", auth(sub))), sub hides its routes: h is
// taken to be reached by every method, but the methods were then
// narrowed by the root's Find, which finds the mount point "/a/*" for
// every method, not "/a/{page}": each method but the request's was marked
// as routed to another route, and "POST /a/login" no longer asked at the
// path. 3 of 3 PUTs reached h, where sub mounted plainly lets 1 of 3 run.
// A route the root cannot list is not narrowed: 1 of 3.
func TestAttackHiddenRouterMethodsNotNarrowedByTheRoot(t *testing.T) {
	t.Parallel()
	m := selectOn(t, quota{"POST /a/login", 1})
	sub := chi.NewRouter()
	sub.With(chilimit.Limit(m)).HandleFunc("/{page}", ok)
	r := chi.NewRouter()
	r.Mount("/a", http.HandlerFunc(sub.ServeHTTP))
	assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodPut, "/a/login"))
}
