package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// A route added after the first request at a pattern the route table had
// read (r.Put("/login", h) beside r.Post("/login", h), a GET "/login"
// asked first) was not seen: the table answered from its first reading,
// and the PUT reached the login handler unlimited, 3 of 3, where "POST
// /login" (1 an hour) guards it. Now the table is read again for a method
// chi routes at a pattern it does not list: 1 of 3, with LimitMux and with
// Limit inline.
func TestAttackMethodAddedAfterTheFirstRequestIsLimited(t *testing.T) {
	t.Parallel()
	for _, inline := range []bool{false, true} {
		m := selectOn(t, quota{"POST /login", 1})
		r := chi.NewRouter()
		var routes chi.Router = r
		if inline {
			routes = r.With(chilimit.Limit(m))
		} else {
			r.Use(chilimit.LimitMux(m, r))
		}
		routes.Get("/login", func(http.ResponseWriter, *http.Request) {})
		assert.Equal(t, 200, from(r, http.MethodGet, "/login", "192.0.2.1:1"))
		hits := 0
		login := func(http.ResponseWriter, *http.Request) { hits++ }
		routes.Post("/login", login)
		routes.Put("/login", login)
		assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodPut, "/login"), "inline %v", inline)
		assert.Equal(t, 1, hits, "inline %v", inline)
	}
}
