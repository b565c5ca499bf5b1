package middleware_test

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

func TestAttackNoPanicOddRequests(t *testing.T) {
	clk := newClock()
	def := limiter(t, clk, core.FixedWindow{Quota: 3, Window: time.Hour})
	rt := middleware.NewRoutes(def)
	for _, p := range []string{"POST /login", "GET /api/{id}", "api.example.com/x/", "/files/{p...}", "GET /{$}", "OPTIONS /o", "HEAD /h"} {
		require.NoError(t, rt.Add(p, limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})))
	}
	key, err := keyfunc.ClientIP(keyfunc.IPOptions{TrustedHops: 1, Headers: []string{"X-Real-IP"}})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	methods := []string{"GET", "get", "HEAD", "OPTIONS", "options", "POST", "CONNECT", "PRI", "", "X"}
	paths := []string{"/", "", "*", "/login", "//login", "/api/1", "/api/%2F", "/files/../../etc", "/x/", "/%zz", "/\x00", "/é", "/o", "/h", "http://a/b", "/a?b", "/files/"}
	hosts := []string{"", "api.example.com", "API.EXAMPLE.COM.", "[::1]:80", "a:b:c", "\xff", "api.example.com:99999"}
	remotes := []string{"", "1.2.3.4:5", "[::1]:1", "bogus", "1.2.3.4", "[fe80::1%eth0]:1", ":0", "[::ffff:1.2.3.4]:1"}
	hdrs := []string{"", "1.2.3.4", "::1", "x, y", "1.2.3.4, 5.6.7.8", "\xff", "[::1]:2", "unknown"}
	for _, pf := range []middleware.Preflight{middleware.PreflightOwnBucket, middleware.PreflightLikeRoute, middleware.PreflightAsOptions} {
		for _, countIf := range []func(int) bool{nil, func(s int) bool { return s >= 400 }} {
			m, err := middleware.NewSelect(rt, middleware.Options{Key: key, Preflight: pf, CountIf: countIf, MaxDelay: time.Second})
			require.NoError(t, err)
			h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader([]int{100, 101, 200, 204, 302, 401, 500, 103}[rng.IntN(8)])
			}))
			for range 3000 {
				r := &http.Request{Method: pick(methods), Header: http.Header{}, Host: pick(hosts), RemoteAddr: pick(remotes)}
				if u, err := url.Parse(pick(paths)); err == nil && rng.IntN(10) > 0 {
					r.URL = u
				} else if rng.IntN(2) == 0 {
					r.URL = &url.URL{Path: pick(paths), RawPath: pick(paths)}
				}
				if rng.IntN(2) == 0 {
					r.Header["Origin"] = []string{"http://o"}
					r.Header["Access-Control-Request-Method"] = []string{pick(methods)}
				}
				r.Header["X-Forwarded-For"] = []string{pick(hdrs)}
				r.Header["X-Real-Ip"] = []string{pick(hdrs)}
				r = r.WithContext(t.Context())
				w := httptest.NewRecorder()
				require.NotPanics(t, func() { h.ServeHTTP(w, r) }, "%s %v host %q remote %q", r.Method, r.URL, r.Host, r.RemoteAddr)
				if w.Code == http.StatusTooManyRequests {
					require.NotEmpty(t, w.Header().Get("Retry-After"))
				}
			}
		}
	}
}
