package middleware_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func serve(h http.Handler, method, path, remote string, hdr map[string]string) int {
	r := httptest.NewRequest(method, path, nil)
	r.RemoteAddr = remote
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

func TestRoutesIsolateEvenWithOneLimiter(t *testing.T) {
	clk := newClock()
	shared := limiter(t, clk, core.FixedWindow{Quota: 2, Window: time.Hour})
	login := limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /a", shared))
	require.NoError(t, rt.Add("GET /b/{id}", shared))
	require.NoError(t, rt.Add("POST /login", login))
	require.NoError(t, rt.Share("reports", limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour}), "GET /r1", "GET /r2"))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	ip := "192.0.2.1:1"
	for _, p := range []string{"/a", "/a"} {
		assert.Equal(t, 200, serve(h, "GET", p, ip, nil))
	}
	assert.Equal(t, 429, serve(h, "GET", "/a", ip, nil))
	// /b/{id} uses the same limiter but its own buckets, one per route
	// however many ids.
	assert.Equal(t, 200, serve(h, "GET", "/b/1", ip, nil))
	assert.Equal(t, 200, serve(h, "GET", "/b/2", ip, nil))
	assert.Equal(t, 429, serve(h, "GET", "/b/3", ip, nil))
	assert.Equal(t, 200, serve(h, "POST", "/login", ip, nil))
	assert.Equal(t, 429, serve(h, "POST", "/login", ip, nil))
	// A shared group is one bucket.
	assert.Equal(t, 200, serve(h, "GET", "/r1", ip, nil))
	assert.Equal(t, 429, serve(h, "GET", "/r2", ip, nil))
	// No route and no default: not limited.
	for i := 0; i < 5; i++ {
		assert.Equal(t, 200, serve(h, "GET", "/elsewhere", ip, nil))
	}
}

func TestRoutesDefaultAndErrors(t *testing.T) {
	clk := newClock()
	def := limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})
	rt := middleware.NewRoutes(def)
	require.NoError(t, rt.Add("GET /a", def))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	assert.Equal(t, 200, serve(h, "GET", "/x", "192.0.2.1:1", nil))
	assert.Equal(t, 429, serve(h, "GET", "/y", "192.0.2.1:1", nil), "unmatched routes share the default")
	assert.Equal(t, 200, serve(h, "GET", "/a", "192.0.2.1:1", nil), "a route using the default limiter keeps its own buckets")

	assert.ErrorIs(t, rt.Add("GET /a", def), core.ErrInvalidConfig, "duplicate")
	assert.ErrorIs(t, rt.Add("GET /{bad", def), core.ErrInvalidConfig)
	assert.ErrorIs(t, rt.Add("GET /c", nil), core.ErrInvalidConfig)
	assert.ErrorIs(t, rt.Add("GET /d", uncomparable{}), core.ErrInvalidConfig)
	assert.ElementsMatch(t, []string{"GET /a"}, rt.Patterns())
}

type uncomparable struct {
	failing
	_ []int
}

// A tenant's tier decides its limits; a tenant that upgrades gets the new
// plan's limits at once; an unknown tier is refused, never served.
func TestTiers(t *testing.T) {
	clk := newClock()
	plan := func(perMin, perDay int64) *core.Limiter {
		p, err := core.NewPolicy("plan",
			core.Limit{Name: "minute", Algorithm: core.FixedWindow{Quota: perMin, Window: time.Minute}},
			core.Limit{Name: "day", Algorithm: core.FixedWindow{Quota: perDay, Window: 24 * time.Hour}})
		require.NoError(t, err)
		l, err := core.NewLimiter(p, core.WithClock(clk))
		require.NoError(t, err)
		return l
	}
	tierOf := map[string]string{"acme": "free"}
	sel, err := middleware.Tiers(func(r *http.Request) (string, error) {
		tenant := r.Header.Get("X-Tenant")
		if tenant == "" {
			return "", errors.New("no tenant")
		}
		if tier, ok := tierOf[tenant]; ok {
			return tier, nil
		}
		return "gold", nil
	}, map[string]middleware.Limiter{"free": plan(2, 1000), "pro": plan(5, 100000)})
	require.NoError(t, err)
	m, err := middleware.NewSelect(sel, middleware.Options{Key: perIP(t)})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	acme := map[string]string{"X-Tenant": "acme"}
	assert.Equal(t, 200, serve(h, "GET", "/", "192.0.2.1:1", acme))
	assert.Equal(t, 200, serve(h, "GET", "/", "192.0.2.1:1", acme))
	assert.Equal(t, 429, serve(h, "GET", "/", "192.0.2.1:1", acme))
	tierOf["acme"] = "pro"
	for i := 0; i < 5; i++ {
		assert.Equal(t, 200, serve(h, "GET", "/", "192.0.2.1:1", acme), "upgraded: request %d", i)
	}
	assert.Equal(t, 429, serve(h, "GET", "/", "192.0.2.1:1", acme))
	assert.Equal(t, 403, serve(h, "GET", "/", "192.0.2.1:1", map[string]string{"X-Tenant": "nobody"}), "unknown tier")
	assert.Equal(t, 403, serve(h, "GET", "/", "192.0.2.1:1", nil), "no tenant")

	_, err = middleware.Tiers(nil, nil)
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = middleware.Tiers(func(*http.Request) (string, error) { return "", nil }, map[string]middleware.Limiter{"x": nil})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
}

// 10,000 requests from one untrusted peer with random forwarding headers
// all land on the peer's key: a limit of 5 admits exactly 5.
func TestSpoofedHeadersShareThePeersBucket(t *testing.T) {
	h := handler(t, limiter(t, newClock(), core.GCRA{Rate: core.PerDay(5)}), middleware.Options{}, okHandler)
	rng := rand.New(rand.NewPCG(5, 6))
	names := []string{"X-Forwarded-For", "X-Real-IP", "Forwarded", "True-Client-IP", "CF-Connecting-IP"}
	ok := 0
	for i := 0; i < 10_000; i++ {
		ip := fmt.Sprintf("%d.%d.%d.%d", rng.IntN(256), rng.IntN(256), rng.IntN(256), rng.IntN(256))
		hdr := map[string]string{names[rng.IntN(len(names))]: ip}
		if rng.IntN(2) == 0 {
			hdr["Forwarded"] = "for=" + ip
		}
		if serve(h, "GET", "/", "203.0.113.9:4242", hdr) == http.StatusOK {
			ok++
		}
	}
	assert.Equal(t, 5, ok)
}

// keyfunc.Route reads the pattern Middleware.Handler sets when it wraps
// the ServeMux, with a single limiter too. Before, Handler set r.Pattern
// only for a Selector other than One, so New with a key of
// keyfunc.Join(keyfunc.Route, keyfunc.Method) refused every request (403,
// "cannot be attributed to a client"); now each pattern has its own
// bucket: GET /items/{id} is served for every id until its limit of 2 is
// spent, and GET /users/{id} keeps its own 2.
func TestRouteKeyWithASingleLimiter(t *testing.T) {
	m, err := middleware.New(limiter(t, newClock(), core.FixedWindow{Quota: 2, Window: time.Hour}),
		middleware.Options{Key: keyfunc.Join(keyfunc.Route, keyfunc.Method)})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("GET /items/{id}", okHandler)
	mux.Handle("GET /users/{id}", okHandler)
	h := m.Handler(mux)
	assert.Equal(t, 200, serve(h, "GET", "/items/7", "192.0.2.1:1", nil))
	assert.Equal(t, 200, serve(h, "GET", "/items/8", "192.0.2.2:1", nil))
	assert.Equal(t, 429, serve(h, "GET", "/items/9", "192.0.2.3:1", nil))
	assert.Equal(t, 200, serve(h, "GET", "/users/1", "192.0.2.1:1", nil))
}
