package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

// Counting only failures, a handler that writes nothing or hijacks the
// connection is no success: it stays counted, through Limit and LimitMux
// (chilimit goes through middleware.Capture). Before, both were refunded.
func TestAttackCountIfNeverGuesses(t *testing.T) {
	t.Run("Limit", func(t *testing.T) {
		stacktest.CheckCountIfNeverGuesses(t, func(m *middleware.Middleware, h http.HandlerFunc) http.Handler {
			r := chi.NewRouter()
			r.With(chilimit.Limit(m)).Post("/login", h)
			return r
		})
	})
	t.Run("LimitMux", func(t *testing.T) {
		stacktest.CheckCountIfNeverGuesses(t, func(m *middleware.Middleware, h http.HandlerFunc) http.Handler {
			r := chi.NewRouter()
			r.Use(chilimit.LimitMux(m, r))
			r.Post("/login", h)
			return r
		})
	})
}
