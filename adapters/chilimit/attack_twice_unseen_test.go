package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// A request meets a Middleware twice only through uses nested in one
// another, which the guard against a decision taken twice now reads from
// the router's tree (see TestSiblingRoutesOfOneLimitPayNoTwiceGuard). A
// nesting the tree does not show is still charged once, as before: a
// router served by a route's handler (not mounted), a use wrapped in a
// middleware of the program's, a use inline on a route under a Use of the
// same Middleware. "/x/*" at 2 an hour: 2 of 3 requests run; charged
// twice, 1 would.
func TestAttackNestingTheTreeCannotShowChargedOnce(t *testing.T) {
	t.Parallel()
	for name, build := range map[string]func(lim func(http.Handler) http.Handler) http.Handler{
		"served by a handler": func(lim func(http.Handler) http.Handler) http.Handler {
			sub := chi.NewRouter()
			sub.Use(lim)
			sub.Get("/x/y", func(http.ResponseWriter, *http.Request) {})
			r := chi.NewRouter()
			r.Use(lim)
			r.HandleFunc("/x/*", sub.ServeHTTP)
			return r
		},
		"wrapped": func(lim func(http.Handler) http.Handler) http.Handler {
			r := chi.NewRouter()
			r.Use(func(next http.Handler) http.Handler { return lim(next) })
			r.With(lim).Get("/x/*", func(http.ResponseWriter, *http.Request) {})
			return r
		},
		"inline under a use": func(lim func(http.Handler) http.Handler) http.Handler {
			r := chi.NewRouter()
			r.Use(lim)
			r.With(lim).Get("/x/*", func(http.ResponseWriter, *http.Request) {})
			r.With(lim).Get("/z", func(http.ResponseWriter, *http.Request) {})
			return r
		},
		"inline twice": func(lim func(http.Handler) http.Handler) http.Handler {
			r := chi.NewRouter()
			r.With(lim).With(lim).Get("/x/*", func(http.ResponseWriter, *http.Request) {})
			return r
		},
	} {
		m := selectOn(t, quota{"/x/*", 2})
		h := build(chilimit.Limit(m))
		assert.Equal(t, []int{200, 200, 429}, thrice(h, http.MethodGet, "/x/y"), name)
	}
}
