package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
)

// TestAttackRglob38bCleanedPathsRoute: chi with CleanPath serves
// "/v1/products/../login" by "/v{version}/login" (1 an hour). The
// limiter around chi matched the path as it came to
// "/v{version}/products/" (1000), whose longer text "outranked" the
// cleaned path's route, left uncharged: 3 of 3. Now 1 of 3, around chi
// and inside it.
func TestAttackRglob38bCleanedPathsRoute(t *testing.T) {
	t.Parallel()
	for _, mount := range []string{"around", "use"} {
		m := selectOn(t, quota{"GET /v{version}/products/", 1000}, quota{"GET /v{version}/login", 1})
		hits := map[string]int{}
		r := chi.NewRouter()
		if mount == "use" {
			r.Use(chilimit.Limit(m))
		}
		r.Use(chimw.CleanPath)
		r.Get("/v{version}/products/", func(http.ResponseWriter, *http.Request) { hits["products"]++ })
		r.Get("/v{version}/login", func(http.ResponseWriter, *http.Request) { hits["login"]++ })
		var h http.Handler = r
		if mount == "around" {
			h = m.Handler(r)
		}
		assert.Equal(t, []int{200, 429, 429}, thrice(h, "GET", "/v1/products/../login"), mount)
		assert.Equal(t, map[string]int{"login": 1}, hits, mount)
	}
}
