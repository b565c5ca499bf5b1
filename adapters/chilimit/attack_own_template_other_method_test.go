package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// chi lists "/legacy/login" for GET alone (a new login page of chi's
// own), and serves POST /legacy/login by its mount "/legacy/*", whose
// ServeMux serves it with the legacy login handler, limited as "POST
// /legacy/login" (1 an hour). Reaches took the template for chi's own,
// whatever the method (Lookup lists a template, not a template and
// method), saw chi route POST /legacy/login to "/legacy/*", and dropped
// the route: every POST ran the legacy login on "/legacy/*"'s 1000.
func TestAttackMountedRouteAtAnOwnTemplateOfAnotherMethodCharged(t *testing.T) {
	t.Parallel()
	for mode := range 3 {
		m := selectOn(t, quota{"POST /legacy/login", 1}, quota{"/legacy/*", 1000})
		hits := 0
		legacy := http.NewServeMux()
		legacy.HandleFunc("POST /legacy/login", func(http.ResponseWriter, *http.Request) { hits++ })
		r := chi.NewRouter()
		switch mode {
		case 0:
			r.Use(chilimit.LimitMux(m, r))
		case 1:
			r.Use(chilimit.Limit(m))
		}
		r.Get("/legacy/login", func(http.ResponseWriter, *http.Request) {})
		if mode == 2 {
			r.With(chilimit.Limit(m)).Mount("/legacy", legacy)
		} else {
			r.Mount("/legacy", legacy)
		}
		codes := thrice(r, http.MethodPost, "/legacy/login")
		assert.Equal(t, []int{200, 429, 429}, codes, "mode %d", mode)
		assert.Equal(t, 1, hits, "mode %d", mode)
	}
}

// chi lists its own "GET /legacy/login/" under "/legacy/login" too (the
// pattern chi's RoutePattern gives, without the slash), and routes GET
// /legacy/login by its mount "/legacy/*" to a ServeMux serving
// "/legacy/login", limited as "/legacy/login" (1 an hour). Reaches took
// the template for chi's own, saw chi route the path to "/legacy/*", and
// dropped it: 3 of 3 ran the mounted handler. A template under the
// catch-all chi routes the path to may be the mounted handler's, and is
// charged.
func TestAttackMountedRouteAtAnOwnSlashTemplateCharged(t *testing.T) {
	t.Parallel()
	for mode := range 3 {
		m := selectOn(t, quota{"/legacy/login", 1}, quota{"/legacy/*", 1000})
		hits := 0
		legacy := http.NewServeMux()
		legacy.HandleFunc("/legacy/login", func(http.ResponseWriter, *http.Request) { hits++ })
		r := chi.NewRouter()
		switch mode {
		case 0:
			r.Use(chilimit.LimitMux(m, r))
		case 1:
			r.Use(chilimit.Limit(m))
		}
		r.Get("/legacy/login/", func(http.ResponseWriter, *http.Request) {})
		if mode == 2 {
			r.With(chilimit.Limit(m)).Mount("/legacy", legacy)
		} else {
			r.Mount("/legacy", legacy)
		}
		codes := thrice(r, http.MethodGet, "/legacy/login")
		assert.Equal(t, []int{200, 429, 429}, codes, "mode %d", mode)
		assert.Equal(t, 1, hits, "mode %d", mode)
	}
}
