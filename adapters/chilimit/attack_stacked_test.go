package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

// A global limit of 1,000 a day (a burst of 10) mounted with r.Use
// around a route's of one every 10 s (a burst of 9): the 10th request
// takes the global limit's last unit and is denied by the route's. Its
// Retry-After was 864 s, when the global limit is whole again; it is now
// 87 s, when it admits one more request, which the adapter learns from
// the admission it passes on (middleware.Admission.Request).
func TestAttackStackedDenialWaitsForTheOuterNextAdmission(t *testing.T) {
	t.Parallel()
	stacktest.CheckStackedWaitsForNextAdmission(t, func(outer, inner *middleware.Middleware, h http.HandlerFunc) http.Handler {
		r := chi.NewRouter()
		r.Use(chilimit.Limit(outer))
		r.With(chilimit.Limit(inner)).Get("/items", h)
		return r
	})
}
