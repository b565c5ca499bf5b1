package config_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackRglob38ConfiguredGlobRoutes: routes loaded from a
// configuration, with the limiter before the router (here a handler
// serving every path, as a chi router or an echo would): chi serves
// "/f/x.png" by "/f/{name}.png" beside "/f/{name}.jpg", echo serves
// "/static/V1" by "/static*" beside "/static/v:x", and a request to
// api.example.com by the host's route as much as by the other. The
// stricter route, configured second, went uncharged at main: 3 of 3.
// Now 1 of 3.
func TestAttackRglob38ConfiguredGlobRoutes(t *testing.T) {
	const pols = "policies: {strict: 1/hour, loose: 1000/hour}\ndefault: {policy: loose}\n"
	for _, c := range []struct{ routes, host, path string }{
		{"routes: [{pattern: 'GET /f/{name}.jpg', policy: loose}, {pattern: 'GET /f/{name}.png', policy: strict}]\n", "example.com", "/f/x.png"},
		{"routes: [{pattern: 'GET /static/v:x', policy: loose}, {pattern: '/static*', policy: strict}]\n", "example.com", "/static/V1"},
		{"routes: [{pattern: 'GET /v:version/x', policy: loose}, {pattern: 'GET api.example.com/v:version/x', policy: strict}]\n", "api.example.com", "/v2/x"},
	} {
		l := load(t, pols+c.routes, nil)
		hits := 0
		h := l.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
		var codes []int
		for range 3 {
			r := httptest.NewRequest("GET", "http://"+c.host+c.path, nil)
			r.RemoteAddr = "192.0.2.1:1"
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			codes = append(codes, w.Code)
		}
		assert.Equal(t, []int{200, 429, 429}, codes, c.routes)
		assert.Equal(t, 1, hits, c.routes)
	}
}
