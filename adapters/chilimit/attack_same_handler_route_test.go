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
// h serves r.Handle("/api/*", h) and r.Post("/api/login", h), "POST
// /api/login" at 1 an hour. A GET or PUT to "/api/login", which chi
// routes to the catch-all, reaches h as surely as a POST does, yet it was
// not charged on "POST /api/login": chi routes POST there to another
// route, and that method was marked as guarding another handler, though
// the handler is h. 3 of 3 GETs (credentials in the query) and 3 of 3
// PUTs ran, where 1 of 3 did before the methods were narrowed. A route of
// the handler the request reaches now guards it: 1 request of the 9.
func TestAttackSameHandlerAtAnotherMethodsRouteIsCharged(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(ok)
	for mode := range 3 {
		m := selectOn(t, quota{"POST /api/login", 1})
		r := chi.NewRouter()
		var routes chi.Router = r
		switch mode {
		case 0:
			r.Use(chilimit.LimitMux(m, r))
		case 1:
			r.Use(chilimit.Limit(m))
		case 2:
			routes = r.With(chilimit.Limit(m))
		}
		routes.Handle("/api/*", h)
		routes.With(func(next http.Handler) http.Handler { return next }).Post("/api/login", h)
		assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodGet, "/api/login?user=a&pass=b"), "mode %d", mode)
		assert.Equal(t, []int{429, 429, 429}, thrice(r, http.MethodPut, "/api/login"), "mode %d", mode)
		assert.Equal(t, []int{429, 429, 429}, thrice(r, http.MethodPost, "/api/login"), "mode %d", mode)
	}
}
