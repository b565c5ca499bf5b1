package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// A router mounted behind a plain handler (r.Mount("/a", auth(sub)))
// hides its routes from the root, whose table tells Routes which methods
// reach a handler: a handler of every method in it (sub.HandleFunc),
// limited inline by "POST /a/login" (1 an hour), was reached by PUT on
// the default limit (none), 3 of 3. Such a handler is now taken to be
// reached by every method: 1 of 3. A GET route of its own keeps the
// login page apart.
func TestAttackHiddenRouterHandlerLimitedForEveryMethod(t *testing.T) {
	t.Parallel()
	m := selectOn(t, quota{"POST /a/login", 1}, quota{"GET /a/login", 1000})
	hits := 0
	sub := chi.NewRouter()
	sub.With(chilimit.Limit(m)).HandleFunc("/login", func(http.ResponseWriter, *http.Request) { hits++ })
	auth := func(h http.Handler) http.Handler { return http.HandlerFunc(h.ServeHTTP) }
	r := chi.NewRouter()
	r.Mount("/a", auth(sub))
	assert.Equal(t, []int{200, 200, 200}, thrice(r, http.MethodGet, "/a/login"))
	assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodPut, "/a/login"))
	assert.Equal(t, 4, hits)
}
