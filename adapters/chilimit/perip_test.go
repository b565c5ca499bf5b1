package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/go-chi/chi/v5"
)

// The one-liner on the root router counts every request of a client IP:
// HEAD of a GET route and requests chi answers 404 or 405 included.
// (The behaviour table in adapters/stacks checks its answers against
// net/http's, preflights and IPv6 included.)
func TestPerIPCountsEveryRequest(t *testing.T) {
	r := chi.NewRouter()
	r.Use(chilimit.MustPerIP("3/hour"))
	r.Get("/hello", ok)
	stacktest.CheckPerIPCountsEveryRequest(t, r, http.StatusMethodNotAllowed)
}

// A preflight reaching a handler serving OPTIONS (Handle's, Options') is
// counted in the client's bucket, though chi has not routed it when the
// one-liner runs: before, it got a bucket of its own, a second budget.
func TestPerIPPreflightReachingHandler(t *testing.T) {
	stacktest.CheckPerIPPreflights(t, func(h http.Handler) http.Handler {
		r := chi.NewRouter()
		r.Use(chilimit.MustPerIP("1/hour"))
		r.Handle("/any", h)
		r.Method(http.MethodOptions, "/opt", h)
		r.Method(http.MethodGet, "/get", h)
		return r
	})
}

// An invalid rate is PerIP's error, naming the column; MustPerIP panics
// with it when the router is built.
func TestPerIPInvalidRate(t *testing.T) {
	stacktest.CheckPerIPInvalidRate(t, chilimit.PerIP, chilimit.MustPerIP)
}
