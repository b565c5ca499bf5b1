package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
)

// One Limit in the root's Use and in a sub-router's decides a request
// once: the use inside takes the decision outside when the request
// charges what it charged. A request charged on its variant's route too
// (a mount point, a non-canonical path under a sub-router with a
// middleware of its own passing it on unchanged, chi's NoCache) was told
// again without its mark, charging its
// route alone, another charge: decided again, it was charged twice, 1
// of 3 ran at 2 an hour ("GET /b" on "/b/", "/b/admin/" on
// "GET /b/admin").
func TestAttackRchib37TwiceMarkedChargedOnce(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"mount point", "sub-router middleware"} {
		m := selectOn(t, quota{"/b/", 2}, quota{"/{id}", 1000}, quota{"GET /b/admin", 2}, quota{"GET /b/{x}", 1000})
		lim := chilimit.Limit(m)
		hits := 0
		h := func(http.ResponseWriter, *http.Request) { hits++ }
		sub, r := chi.NewRouter(), chi.NewRouter()
		r.Use(lim)
		path := "/b"
		if kind == "sub-router middleware" {
			sub.Use(chimw.NoCache) // the request passed on unchanged
			path = "/b/admin/"
		}
		sub.Use(lim)
		sub.Get("/", h)
		sub.Get("/admin", h)
		sub.Get("/{x}/", h)
		r.Mount("/b", sub)
		r.Get("/{id}", func(http.ResponseWriter, *http.Request) {})
		assert.Equal(t, []int{200, 200, 429}, thrice(r, http.MethodGet, path), kind)
		assert.Equal(t, 2, hits, kind)
	}
}
