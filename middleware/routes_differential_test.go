package middleware_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// charges is a Limiter that admits everything and records the requests
// it was asked to decide.
type charges struct{ n int }

func (c *charges) AllowN(context.Context, string, int64) (core.Result, error) {
	c.n++
	return core.Result{Allowed: true}, nil
}

func (c *charges) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, nil
}

// TestRoutesChargeTheServedPattern sends random request shapes (encoded
// and plain dot segments, empty segments, encoded letters and slashes,
// case, trailing slashes, CONNECT's uncleaned paths) to an application
// ServeMux of nested subtree and specific patterns, behind Routes holding
// the same patterns: every request a handler serves is charged on the
// route of that handler's pattern (and may be on the route a variant of
// its path names too). Before, 1,739 of 13,374 requests served were charged
// on another route only, and 363 more of a method in lower case ("get":
// ServeMux matches a pattern's method as written, Routes up to case; still
// 28 once variants were charged with the served pattern).
func TestRoutesChargeTheServedPattern(t *testing.T) {
	patterns := []string{
		"/", "/admin/", "/admin/public", "GET /admin/public/{x}", "/api/", "POST /api/login",
		"/files/{p...}", "/api/v1/", "/api/v1/public", "/users/{id}/admin/", "GET /users/{id}",
	}
	rt := middleware.NewRoutes(nil)
	lims := map[string]*charges{}
	app := http.NewServeMux()
	served := ""
	for _, p := range patterns {
		lims[p] = &charges{}
		require.NoError(t, rt.Add(p, lims[p]))
		app.HandleFunc(p, func(_ http.ResponseWriter, r *http.Request) { served = r.Pattern })
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(app)
	segs := []string{"admin", "public", "PUBLIC", "%70ublic", "%61dmin", "api", "v1", "login", "files", "users", "x",
		"%2E%2E", "%2e%2e", "%2E", "..", ".", "", "%2F", "Admin"}
	methods := []string{"GET", "POST", "HEAD", "CONNECT", "get", "PUT"}
	rnd := rand.New(rand.NewPCG(1, 2))
	total, escaped, byCase := 0, 0, 0
	for range 20000 {
		r, ok := randomRequest(rnd, segs, methods)
		if !ok {
			continue
		}
		for _, c := range lims {
			c.n = 0
		}
		served = ""
		h.ServeHTTP(httptest.NewRecorder(), r)
		if served == "" {
			continue // redirected, 404 or 405: no handler ran
		}
		total++
		if lims[served].n == 0 {
			escaped++
			if r.Method != strings.ToUpper(r.Method) {
				byCase++
			}
			if escaped <= 5 {
				t.Logf("%s %q served by %q, not charged there", r.Method, r.URL.EscapedPath(), served)
			}
		}
	}
	t.Logf("%d of %d requests served were not charged on the served pattern's route (%d of a method in lower case)", escaped, total, byCase)
	assert.Zero(t, escaped)
	assert.Greater(t, total, 1000)
}

// decodePath decodes an escaped path as net/url does.
func decodePath(p string) (string, error) {
	u, err := http.NewRequest("GET", "http://h"+p, nil)
	if err != nil {
		return "", err
	}
	return u.URL.Path, nil
}

// randomRequest returns a request of a random method of methods to a path
// of 1 to 5 random segments of segs (escaped ones decoded into its Path,
// kept in its RawPath), with a trailing slash one time in 3, from
// 192.0.2.1; false for a path that does not decode.
func randomRequest(rnd *rand.Rand, segs, methods []string) (*http.Request, bool) {
	var b strings.Builder
	for range 1 + rnd.IntN(5) {
		b.WriteString("/" + segs[rnd.IntN(len(segs))])
	}
	if rnd.IntN(3) == 0 {
		b.WriteString("/")
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.Method = methods[rnd.IntN(len(methods))]
	r.URL.RawPath = ""
	r.URL.Path = b.String()
	if strings.Contains(b.String(), "%") {
		p, err := decodePath(b.String())
		if err != nil {
			return nil, false
		}
		r.URL.Path, r.URL.RawPath = p, b.String()
	}
	r.RequestURI = b.String()
	r.RemoteAddr = "192.0.2.1:1"
	return r, true
}
