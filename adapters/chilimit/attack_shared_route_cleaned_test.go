package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
)

// TestAttackSharedRouteAtACleanedPath: h, r.Handle("/api/*", h), serves
// every method, so "POST /api/secret" (1) guards it for a GET of
// "/api/secret" too. Behind CleanPath chi serves "/api/secret/.",
// "/api//secret" and "/api/x/../secret" as "/api/secret", with h: those
// GETs were charged on no route (3 of 3 admitted, after the budget was
// spent), as the routes of the other methods reaching h were asked at
// the request's path alone, never at its cleaned variant.
func TestAttackSharedRouteAtACleanedPath(t *testing.T) {
	t.Parallel()
	for mode := range 3 {
		m := selectOn(t, quota{"/api/", 1000}, quota{"POST /api/secret", 1})
		r := chi.NewRouter()
		r.Use(chimw.CleanPath)
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
		assert.Equal(t, 200, from(r, http.MethodGet, "/api/secret", "192.0.2.1:1"), "mode %d", mode)
		for _, p := range []string{"/api/secret/.", "/api//secret", "/api/x/../secret"} {
			assert.Equal(t, 429, from(r, http.MethodGet, p, "192.0.2.1:1"), "mode %d %s", mode, p)
		}
	}
}
