package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// One Middleware mounted twice on a request's way (one Limit value in the
// root router's Use and a sub-router's, LimitMux and Limit, two Limits)
// decided it twice in the same buckets: with "GET /api/x" at 2 an hour, 1
// request of 3 ran. A request the Middleware has decided by the same
// route outside is now not charged again: 2 of 3. A route of another
// Middleware (stacked limits) is charged as before.
func TestAttackOneMiddlewareMountedTwiceChargesOnce(t *testing.T) {
	t.Parallel()
	for mode := range 3 {
		m := selectOn(t, quota{"GET /api/x", 2})
		lim := chilimit.Limit(m)
		r := chi.NewRouter()
		switch mode {
		case 0:
			r.Use(lim)
		case 1:
			r.Use(chilimit.LimitMux(m, r))
		case 2:
			r.Use(chilimit.Limit(m))
		}
		r.Route("/api", func(s chi.Router) {
			s.Use(lim)
			s.Get("/x", func(http.ResponseWriter, *http.Request) {})
		})
		assert.Equal(t, []int{200, 200, 429}, thrice(r, http.MethodGet, "/api/x"), "mode %d", mode)
	}
}
