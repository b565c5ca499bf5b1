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

// An invalid rate is PerIP's error, naming the column; MustPerIP panics
// with it when the router is built.
func TestPerIPInvalidRate(t *testing.T) {
	stacktest.CheckPerIPInvalidRate(t, chilimit.PerIP, chilimit.MustPerIP)
}
