package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// LimitMux resolves a request on the root router chi routes it with,
// whatever router it was given: another router (a program's second one, a
// LimitMux mounted on two) or the sub-router whose Use it is mounted with.
// Before, it found no route on the router given, and a handler serving
// every method, limited as "POST /login" (2 an hour, no default), served 4
// PUTs of 4 in both cases.
func TestAttackLimitMuxGivenAnotherRouter(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	quota := func(pattern string) *middleware.Middleware {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add(pattern, limiter(t, core.GCRA{Rate: core.PerHour(2), Burst: 2})))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		return m
	}
	for name, c := range map[string]struct {
		app  func(m *middleware.Middleware) http.Handler
		path string
	}{
		"another router": {path: "/login", app: func(m *middleware.Middleware) http.Handler {
			other := chi.NewRouter()
			other.Get("/health", ok)
			r := chi.NewRouter()
			r.Use(chilimit.LimitMux(m, other))
			r.Handle("/login", ok)
			return r
		}},
		"mounted sub-router": {path: "/api/login", app: func(m *middleware.Middleware) http.Handler {
			sub := chi.NewRouter()
			sub.Use(chilimit.LimitMux(m, sub))
			sub.Handle("/login", ok)
			r := chi.NewRouter()
			r.Mount("/api", sub)
			return r
		}},
	} {
		t.Run(name, func(t *testing.T) {
			h := c.app(quota("POST " + c.path))
			var got []int
			for range 4 {
				got = append(got, get(h, http.MethodPut, c.path).Code)
			}
			assert.Equal(t, []int{200, 200, 429, 429}, got)
		})
	}
}
