package chilimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twiceUser is the context key an authentication middleware stores the
// user under in TestAttackMountedTwiceKeyedOtherwiseInsideIsCharged.
type twiceUser struct{}

// One Middleware mounted twice, in the root's Use before an
// authentication middleware and in a sub-router's after it, keyed by the
// user when there is one, else by the client address: the outer use
// charges each client address, the inner the user. The inner use took the
// outer's decision (same Middleware, route and methods) for its own and
// passed the request on uncharged, so that the user's limit ("GET /api/x"
// at 2 an hour) was never charged: 4 of 4 requests of one user from 4
// addresses ran. The same with a middleware rewriting RemoteAddr in place
// (chi's RealIP) between the two. A request changed between the two uses
// is now decided again: 2 of 4.
func TestAttackMountedTwiceKeyedOtherwiseInsideIsCharged(t *testing.T) {
	t.Parallel()
	between := map[string]func(http.Handler) http.Handler{
		"auth": func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ctx := context.WithValue(r.Context(), twiceUser{}, r.Header.Get("X-User"))
				next.ServeHTTP(w, r.WithContext(ctx))
			})
		},
		"realip": func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.RemoteAddr = r.Header.Get("X-User") + ":1" // in place, as chi's RealIP
				next.ServeHTTP(w, r)
			})
		},
	}
	for name, mw := range between {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("GET /api/x", fixed(t, 2)))
		m, err := middleware.NewSelect(rt, middleware.Options{Key: func(r *http.Request) (string, error) {
			if u, ok := r.Context().Value(twiceUser{}).(string); ok {
				return "user " + u, nil
			}
			return "addr " + r.RemoteAddr, nil
		}})
		require.NoError(t, err)
		lim := chilimit.Limit(m)
		r := chi.NewRouter()
		r.Use(lim, mw)
		r.Route("/api", func(s chi.Router) {
			s.Use(lim)
			s.Get("/x", func(http.ResponseWriter, *http.Request) {})
		})
		var codes []int
		for _, addr := range []string{"192.0.2.1:1", "192.0.2.2:1", "192.0.2.3:1", "192.0.2.4:1"} {
			req := httptest.NewRequest(http.MethodGet, "/api/x", nil)
			req.RemoteAddr = addr
			req.Header.Set("X-User", "alice")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			codes = append(codes, w.Code)
		}
		assert.Equal(t, []int{200, 200, 429, 429}, codes, name)
	}
}
