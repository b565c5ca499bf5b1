package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackMidSegmentParamLimitedWithoutTemplate: gin and echo serve
// "/v2/x" with the route "/v:version/x", and echo serves "/static/a.css"
// and "/staticfoo" with "/static*": a parameter or catch-all after text in
// a segment. ServeMux reads such a segment as a literal, so a limiter
// mounted before the router (no template) charged those requests on the
// default alone: 3 of 3 past a route limit of 1 an hour. They are now
// charged on the route too, all or nothing.
func TestAttackMidSegmentParamLimitedWithoutTemplate(t *testing.T) {
	for _, c := range []struct{ route, method, path string }{
		{"GET /v:version/x", "GET", "/v2/x"},
		{"GET /v:version/x", "HEAD", "/v2/x"},
		{"GET /v:version/x", "GET", "/v/x"},
		{"GET /v:version/x", "GET", "/v%32/x"},
		{"/static*", "GET", "/static/a.css"},
		{"/static*", "POST", "/staticfoo"},
		{"GET /files/pre_:name/y", "GET", "/files/pre_a.b/y"},
		{"POST api.example.com/v:version/login", "POST", "/v1/login"},
		{"GET /a/:id/v:version/*rest", "GET", "/a/1/v2/q/r"},
	} {
		hits := 0
		router := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ })
		h := quotaRoutes(t, true, quota{c.route, 1}).Handler(router)
		var codes []int
		for range 3 {
			codes = append(codes, serveHost(h, c.method, c.path, "api.example.com"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s under %q", c.method, c.path, c.route)
		assert.Equal(t, 1, hits, "%s %s under %q", c.method, c.path, c.route)
	}
}

// TestMidSegmentParamOtherPathsNotCharged: paths the template does not
// serve keep the default alone, and a ServeMux application whose pattern
// serves the request says the router: "POST /v1/books:list" is its own
// route there, not "POST /v1/books:batchGet" read as gin's parameter.
func TestMidSegmentParamOtherPathsNotCharged(t *testing.T) {
	h := quotaRoutes(t, true, quota{"GET /v:version/x", 1}).Handler(okHandler)
	for _, p := range []string{"/w2/x", "/v2/y", "/v2/x/z", "/x/v2/x"} {
		for range 3 {
			assert.Equal(t, 200, serveHost(h, "GET", p, "h"), p)
		}
	}
	for range 3 {
		assert.Equal(t, 200, serveHost(h, "POST", "/v2/x", "h"), "another method")
	}

	app := http.NewServeMux()
	app.HandleFunc("POST /v1/books:batchGet", func(http.ResponseWriter, *http.Request) {})
	app.HandleFunc("POST /v1/books:list", func(http.ResponseWriter, *http.Request) {})
	m := quotaRoutes(t, true, quota{"POST /v1/books:batchGet", 1})
	mux := m.Handler(app)
	assert.Equal(t, 200, serveHost(mux, "POST", "/v1/books:batchGet", "h"))
	assert.Equal(t, 429, serveHost(mux, "POST", "/v1/books:batchGet", "h"))
	for range 3 {
		assert.Equal(t, 200, serveHost(mux, "POST", "/v1/books:list", "h"), "the application's own pattern")
	}
}

func serveHost(h http.Handler, method, path, host string) int {
	r := httptest.NewRequest(method, path, nil)
	r.Host = host
	r.RemoteAddr = "192.0.2.1:1"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}
