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

// TestAttackRglob38bChiBracesNotOverflowing: chi serves "/img/cat.png"
// by one of five image routes, and needs the text between braces
// ("/f/abc" is not served by "/f/{name}.{ext}"). The limiter around chi
// matched each of the five to every ".png" path (their first and last
// text alone), six routes with the default, more than a charge holds:
// every ".png" request was refused, 0 of 3 served. Now 3 of 3 (100 an
// hour), and "/img/10x20.png" is still charged on "{w}x{h}.png" (1 an
// hour) beside "{name}.png": 1 of 3.
func TestAttackRglob38bChiBracesNotOverflowing(t *testing.T) {
	t.Parallel()
	images := []string{"/img/{name}.{ext}", "/img/{name}.png", "/img/{w}x{h}.png", "/img/{id}-{slug}.png", "/img/{name}_{size}.png"}
	var qs []quota
	for _, p := range images {
		qs = append(qs, quota{"GET " + p, 100})
	}
	r := chi.NewRouter()
	for _, p := range images {
		r.Get(p, func(http.ResponseWriter, *http.Request) {})
	}
	assert.Equal(t, []int{200, 200, 200}, thrice(selectOn(t, qs...).Handler(r), "GET", "/img/cat.png"))

	// Both routes still charged where both match: 1 of 3 at the
	// stricter's 1 an hour, whichever chi serves it by.
	m := selectOn(t, quota{"GET /img/{name}.png", 1000}, quota{"GET /img/{w}x{h}.png", 1})
	r = chi.NewRouter()
	r.Get("/img/{name}.png", func(http.ResponseWriter, *http.Request) {})
	r.Get("/img/{w}x{h}.png", func(http.ResponseWriter, *http.Request) {})
	assert.Equal(t, []int{200, 429, 429}, thrice(m.Handler(r), "GET", "/img/10x20.png"))

	r = chi.NewRouter()
	r.Get("/f/{name}.{ext}", func(http.ResponseWriter, *http.Request) {})
	assert.Equal(t, []int{404, 404, 404}, thrice(r, "GET", "/f/abc"), "chi needs the text between braces")
}
