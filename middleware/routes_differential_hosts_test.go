package middleware_test

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRoutesChargeTheServedPatternHostsMethodsPreflights is
// TestRoutesChargeTheServedPattern with patterns naming hosts, methods of
// every kind (OPTIONS, CONNECT, TRACE, extension tokens, in any case),
// "{$}", an escaped slash, CORS preflights in every Preflight mode, and the
// middleware mounted on the ServeMux or before it: every request a handler
// serves is charged on the route of that handler's pattern.
func TestRoutesChargeTheServedPatternHostsMethodsPreflights(t *testing.T) {
	patterns := []string{
		"/", "example.com/admin/", "/admin/", "GET /admin/{$}", "/admin/public", "OPTIONS /api/", "POST /api/login",
		"/files/{p...}", "TRACE /t", "PURGE /cache/{k}", "api.example.com/login", "/a/b/{$}", "/x%2Fy", "/api/",
		"GET /users/{id}", "/users/{id}/admin/", "DELETE /users/{id}",
	}
	for _, mode := range []middleware.Preflight{middleware.PreflightOwnBucket, middleware.PreflightLikeRoute, middleware.PreflightAsOptions} {
		for _, mounted := range []bool{true, false} {
			rt := middleware.NewRoutes(nil)
			lims := map[string]*charges{}
			app := http.NewServeMux()
			served := ""
			for _, p := range patterns {
				lims[p] = &charges{}
				require.NoError(t, rt.Add(p, lims[p]))
				app.HandleFunc(p, func(_ http.ResponseWriter, r *http.Request) { served = r.Pattern })
			}
			m, err := middleware.NewSelect(rt, middleware.Options{Preflight: mode})
			require.NoError(t, err)
			var h http.Handler = m.Handler(app)
			if !mounted {
				h = m.Handler(http.HandlerFunc(app.ServeHTTP))
			}
			segs := []string{"admin", "public", "PUBLIC", "%70ublic", "%61dmin", "api", "login", "files", "users", "x", "t", "cache", "a", "b",
				"%2E%2E", "%2e%2e", "%2E", "..", ".", "", "%2F", "%2f", "Admin", "x%2Fy", "x%2fy", "%78%2Fy", "7", "%2e", "LOGIN"}
			methods := []string{"GET", "POST", "HEAD", "CONNECT", "get", "PUT", "OPTIONS", "options", "TRACE", "trace", "PURGE", "purge", "Purge", "M-SEARCH", "DELETE", "delete"}
			hosts := []string{"example.com", "EXAMPLE.COM", "example.com.", "api.example.com", "API.example.com.", "other", "", "example.com:80", "api.example.com:8080"}
			rnd := rand.New(rand.NewPCG(3, 4))
			total, escaped := 0, 0
			for range 6000 {
				r, ok := randomRequest(rnd, segs, methods)
				if !ok {
					continue
				}
				r.Host = hosts[rnd.IntN(len(hosts))]
				if rnd.IntN(3) == 0 {
					r.Header.Set("Origin", "https://o.example")
					r.Header.Set("Access-Control-Request-Method", methods[rnd.IntN(len(methods))])
				}
				for _, c := range lims {
					c.n = 0
				}
				served = ""
				h.ServeHTTP(httptest.NewRecorder(), r)
				if served == "" {
					continue
				}
				total++
				if lims[served].n == 0 {
					escaped++
					if escaped <= 15 {
						t.Logf("mode %v mounted=%v %s acrm=%q host=%q %q served by %q, not charged there", mode, mounted, r.Method, r.Header.Get("Access-Control-Request-Method"), r.Host, r.URL.EscapedPath(), served)
					}
				}
			}
			assert.Zero(t, escaped, "mode %v mounted=%v: of %d served", mode, mounted, total)
			assert.Greater(t, total, 1000)
		}
	}
}
