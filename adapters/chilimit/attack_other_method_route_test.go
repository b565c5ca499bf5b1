package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// A GET or PUT to "/api/login", which chi serves with r.Handle("/api/*",
// h) beside r.Post("/api/login", login), was charged on "POST /api/login"
// (1 an hour) as well as the catch-all's "/api/" (1000): the catch-all's
// handler is reached by every method, and POST's route at the path was
// taken to guard it. chi routes a POST there to login, not to h: after
// one GET the client's logins were refused (1 of 3 GETs, 0 of 3 POSTs),
// with LimitMux, Limit in the Use and inline. Now the methods chi routes
// the path by to the catch-all alone count: 3 GETs, 3 PUTs, 1 POST of 3.
// A ServeMux mounted there, whose "POST /legacy/login" chi does not see,
// stays guarded (TestAttackRouteUnderAMountedHandlerCharged).
func TestAttackOtherMethodsRouteUnderACatchAllNotCharged(t *testing.T) {
	t.Parallel()
	for mode := range 3 {
		m := selectOn(t, quota{"/api/", 1000}, quota{"POST /api/login", 1})
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
		routes.Handle("/api/*", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		routes.Post("/api/login", func(http.ResponseWriter, *http.Request) {})
		assert.Equal(t, []int{200, 200, 200}, thrice(r, http.MethodGet, "/api/login"), "mode %d", mode)
		assert.Equal(t, []int{200, 200, 200}, thrice(r, http.MethodPut, "/api/login"), "mode %d", mode)
		assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodPost, "/api/login"), "mode %d", mode)
	}
}
