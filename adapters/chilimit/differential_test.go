package chilimit_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// charges is a Limiter that admits everything and counts its decisions.
type charges struct{ n int }

func (c *charges) AllowN(context.Context, string, int64) (core.Result, error) {
	c.n++
	return core.Result{Allowed: true}, nil
}
func (c *charges) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, nil
}

// TestChiChargesTheServedRoute sends random request shapes (dot segments
// plain and encoded, empty segments, case, trailing slashes, methods in
// any case) to a chi router behind Limit (in its Use) and LimitMux, alone
// and with CleanPath, StripSlashes or GetHead: every request a handler
// serves is charged on the route of that handler. Before, 22 of ~2,500
// were charged elsewhere only: a catch-all's path whose variant names a
// route, dot segments chi serves as a parameter ("/opt/..", "/users/./").
func TestChiChargesTheServedRoute(t *testing.T) {
	type reg struct{ method, tpl string }
	regs := []reg{{"GET", "/admin/*"}, {"GET", "/admin/public"}, {"POST", "/api/login"}, {"", "/api/*"}, {"GET", "/users/{id}"},
		{"DELETE", "/users/{id}"}, {"GET", "/files/*"}, {"GET", "/users/{id}/admin"}, {"", "/x"}, {"OPTIONS", "/opt/{k}"}}
	for cfg := range 4 {
		for _, useMux := range []bool{false, true} {
			rt := middleware.NewRoutes(nil)
			lims := map[reg]*charges{}
			r := chi.NewRouter()
			switch cfg {
			case 1:
				r.Use(chimw.CleanPath)
			case 2:
				r.Use(chimw.StripSlashes)
			case 3:
				r.Use(chimw.GetHead)
			}
			m, err := middleware.NewSelect(rt, middleware.Options{})
			require.NoError(t, err)
			served := reg{}
			for _, g := range regs {
				lims[g] = &charges{}
				p := g.tpl
				if g.method != "" {
					p = g.method + " " + g.tpl
				}
				require.NoError(t, rt.Add(p, lims[g]))
			}
			var h http.Handler
			if useMux {
				r2 := chi.NewRouter()
				r2.Use(chilimit.LimitMux(m, r))
				r2.Mount("/", r)
				h = r2
			} else {
				r.Use(chilimit.Limit(m))
				h = r
			}
			for _, g := range regs {
				g := g
				f := func(http.ResponseWriter, *http.Request) { served = g }
				if g.method == "" {
					r.HandleFunc(g.tpl, f)
				} else {
					r.MethodFunc(g.method, g.tpl, f)
				}
			}
			segs := []string{"admin", "public", "PUBLIC", "%70ublic", "api", "login", "LOGIN", "files", "users", "x", "X", "7", "opt",
				"%2E%2E", "%2e", "..", ".", "", "%2F", "Admin"}
			methods := []string{"GET", "POST", "HEAD", "get", "post", "PUT", "OPTIONS", "DELETE", "delete", "TRACE", "PATCH"}
			rnd := rand.New(rand.NewPCG(5, uint64(cfg)))
			total, escaped := 0, 0
			for range 6000 {
				var b strings.Builder
				for range 1 + rnd.IntN(4) {
					b.WriteString("/" + segs[rnd.IntN(len(segs))])
				}
				if rnd.IntN(3) == 0 {
					b.WriteString("/")
				}
				req, err := http.NewRequest("GET", "http://example.com"+b.String(), nil)
				if err != nil {
					continue
				}
				req.Method = methods[rnd.IntN(len(methods))]
				req.RemoteAddr = "192.0.2.1:1"
				req.RequestURI = b.String()
				for _, c := range lims {
					c.n = 0
				}
				served = reg{}
				h.ServeHTTP(httptest.NewRecorder(), req)
				if served.tpl == "" {
					continue
				}
				total++
				if lims[served].n == 0 {
					escaped++
					if escaped <= 8 {
						t.Logf("cfg %d mux=%v: %s %q served by %v, not charged there", cfg, useMux, req.Method, req.URL.EscapedPath(), served)
					}
				}
			}
			assert.Zero(t, escaped, "cfg %d mux=%v, of %d served", cfg, useMux, total)
			assert.Greater(t, total, 200)
		}
	}
}
