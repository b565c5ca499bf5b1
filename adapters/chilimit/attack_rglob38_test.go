package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// TestAttackRglob38ChiServesTheStricterGlob: chi serves each request below
// by the strict route (1 an hour) of two that the limiter's glob matching
// could not tell apart, or did not match at all:
//   - "/f/{name}.png" beside "/f/{name}.jpg" and "/u{id:[0-9]+}" beside
//     "/u{name}": the text after a parameter and a regexp were dropped, the
//     two read as one shape, and the looser, added first, was charged
//     alone (limiter before chi);
//   - "/g/{name:.+}.png" serves "/g/a/b.png", its regexp taking a slash
//     that a parameter never does (limiter before chi);
//   - "/v{version}/x" written "/v{ver}/x", beside a whole-segment
//     "/{id}/x" that the path matches first (chilimit inside chi);
//   - "POST /v{ver}/login" guarding chi's Handle (every method) at
//     "/v{version}/login": found by ServeMux through r.Pattern's method
//     list before 0f90cee, lost when such routes left the ServeMux.
//
// Each ran 3 of 3 at main; 1 of 3 now.
func TestAttackRglob38ChiServesTheStricterGlob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, path string
		inside             bool
		qs                 []quota
		routes             []string
	}{
		{"suffix", "GET", "/f/x.png", false, []quota{{"GET /f/{name}.jpg", 1000}, {"GET /f/{name}.png", 1}}, []string{"/f/{name}.jpg", "/f/{name}.png"}},
		{"regexp", "GET", "/u12", false, []quota{{"GET /u{name}", 1000}, {"GET /u{id:[0-9]+}", 1}}, []string{"/u{name}", "/u{id:[0-9]+}"}},
		{"regexp across a slash", "GET", "/g/a/b.png", false, []quota{{"GET /g/{name:.+}.png", 1}}, []string{"/g/{name:.+}.png"}},
		{"other names beside a whole segment", "GET", "/v2/x", true, []quota{{"GET /{id}/x", 1000}, {"GET /v{ver}/x", 1}}, []string{"/{id}/x", "/v{version}/x"}},
	} {
		m := selectOn(t, tc.qs...)
		hits := 0
		r := chi.NewRouter()
		if tc.inside {
			r.Use(chilimit.Limit(m))
		}
		for _, p := range tc.routes {
			r.Get(p, func(http.ResponseWriter, *http.Request) { hits++ })
		}
		var h http.Handler = r
		if !tc.inside {
			h = m.Handler(r)
		}
		codes := thrice(h, tc.method, tc.path)
		assert.Equal(t, []int{200, 429, 429}, codes, tc.name)
		assert.Equal(t, 1, hits, tc.name)
	}

	m := selectOn(t, quota{"POST /v{ver}/login", 1})
	hits := 0
	r := chi.NewRouter()
	r.Use(chilimit.Limit(m))
	r.Handle("/v{version}/login", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
	assert.Equal(t, []int{200, 429, 429}, thrice(r, "GET", "/v1/login"), "every method")
	assert.Equal(t, 1, hits, "every method")
}

// TestAttackRglob38CatchAllHandlerRoutesGlob: a chi router handed to
// chi's r.Handle("/legacy/*", …) serves "/legacy/v2/x" by its
// "/legacy/v{version}/x" (1 an hour; "/legacy/*" 1000). Before 0f90cee
// the route, in ServeMux as "/legacy/{p1}/x", was found under the
// catch-all template; taken out of ServeMux, it went uncharged with
// chilimit inside chi (LimitMux and Limit): 3 of 3 at main. 1 of 3 now,
// the route in chi's names or others.
func TestAttackRglob38CatchAllHandlerRoutesGlob(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"GET /legacy/v{version}/x", "GET /legacy/v{ver}/x"} {
		for mode := range 2 {
			m := selectOn(t, quota{policy, 1}, quota{"/legacy/*", 1000})
			hits := 0
			legacy := chi.NewRouter()
			legacy.Get("/legacy/v{version}/x", func(http.ResponseWriter, *http.Request) { hits++ })
			r := chi.NewRouter()
			if mode == 0 {
				r.Use(chilimit.LimitMux(m, r))
			} else {
				r.Use(chilimit.Limit(m))
			}
			r.Handle("/legacy/*", legacy)
			assert.Equal(t, []int{200, 429, 429}, thrice(r, "GET", "/legacy/v2/x"), "%s, mode %d", policy, mode)
			assert.Equal(t, 1, hits, "%s, mode %d", policy, mode)
		}
	}
}

// TestAttackRglob38ChiGlobOutranksOnlyWhenServed: chi serves "/v1/xy" by
// "/v{a}/{id}" (1 an hour): "/v{a}/{x}-{y}" (1000) needs a '-' there.
// Glob matches chi's braces generously (any text between and around
// them), and a generous match outranked the route chi serves: the
// limiter before chi charged "/v{a}/{x}-{y}" alone, 3 of 3. A glob of
// chi's braces outranks none now: both are charged, 1 of 3. And
// "/v{version}/" serves "/v1/" alone in chi: "/v1/items" is not charged
// on it (a trailing slash holds no paths below it there).
func TestAttackRglob38ChiGlobOutranksOnlyWhenServed(t *testing.T) {
	t.Parallel()
	m := selectOn(t, quota{"GET /v{a}/{x}-{y}", 1000}, quota{"GET /v{a}/{id}", 1})
	hits := 0
	r := chi.NewRouter()
	r.Get("/v{a}/{x}-{y}", func(http.ResponseWriter, *http.Request) {})
	r.Get("/v{a}/{id}", func(http.ResponseWriter, *http.Request) { hits++ })
	assert.Equal(t, []int{200, 429, 429}, thrice(m.Handler(r), "GET", "/v1/xy"))
	assert.Equal(t, 1, hits)

	m = selectOn(t, quota{"GET /v{version}/", 1}, quota{"GET /v{version}/items", 1000})
	r = chi.NewRouter()
	r.Get("/v{version}/", func(http.ResponseWriter, *http.Request) {})
	r.Get("/v{version}/items", func(http.ResponseWriter, *http.Request) {})
	assert.Equal(t, []int{200, 200, 200}, thrice(m.Handler(r), "GET", "/v1/items"), "not the slash's route")
	assert.Equal(t, []int{200, 429, 429}, thrice(m.Handler(r), "GET", "/v1/"))
}
