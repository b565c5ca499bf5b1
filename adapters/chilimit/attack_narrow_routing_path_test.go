package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
)

// It guards against a narrowing of the methods that was withdrawn: the
// adapters marked "-" the methods a router routes the path by to another
// route, and each review of the marks found a handler they let through
// uncharged; the marks are gone, and this request is charged again.
//
// TestAttackNarrowedByTheRoutingPath: behind StripSlashes or CleanPath,
// chi routes "/api/secret/" as "/api/secret", by GET and by POST to h
// (r.Handle("/api/*", h)), which "POST /api/secret/" (1) then guards. The
// methods were narrowed by the path as it came, which chi routes by POST
// to r.Post("/api/{x}/", …): POST was marked "-" and the GETs reached h
// past its route's limit (3 of 3; 1 of 3 before the marks, a776f9a~1),
// with LimitMux, Limit in the Use and inline.
func TestAttackNarrowedByTheRoutingPath(t *testing.T) {
	t.Parallel()
	for mode := range 3 {
		for _, rw := range []func(http.Handler) http.Handler{chimw.StripSlashes, chimw.CleanPath} {
			m := selectOn(t, quota{"POST /api/secret/", 1})
			r := chi.NewRouter()
			r.Use(rw)
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
			routes.Post("/api/{x}/", func(http.ResponseWriter, *http.Request) {})
			assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodGet, "/api/secret/"), "mode %d", mode)
		}
	}
}
