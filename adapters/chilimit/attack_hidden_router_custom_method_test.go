package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// customMethod is a method registered with chi (WebDAV's), which chi
// routes to a handler of every method (Handle) as it routes GET. chi's
// methods are global: it is registered once, before any test runs.
const customMethod = "PROPFIND"

func init() { chi.RegisterMethod(customMethod) }

// A handler of every method in a router mounted behind a plain handler
// (r.Mount("/a", auth(sub))), limited inline by "POST /a/login" (1 an
// hour), is taken to be reached by every method, net/http's: a method
// registered with chi.RegisterMethod reached it on the default limit,
// 3 of 3 PROPFINDs, where a PUT is limited (1 of 3) and a router the
// root lists limits the PROPFIND too. The request's own method is now
// among those reaching it: 1 of 3.
func TestAttackHiddenRouterHandlerLimitedForARegisteredMethod(t *testing.T) {
	t.Parallel()
	m := selectOn(t, quota{"POST /a/login", 1})
	sub := chi.NewRouter()
	sub.With(chilimit.Limit(m)).HandleFunc("/login", ok)
	r := chi.NewRouter()
	r.Mount("/a", http.HandlerFunc(sub.ServeHTTP))
	assert.Equal(t, []int{200, 429, 429}, thrice(r, customMethod, "/a/login"))
}
