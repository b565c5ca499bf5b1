package middleware_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/middleware"
)

// FuzzRoutesMethodVariants checks, for any path and method, that Routes
// never panics, that HEAD selects exactly what GET selects (no HEAD route is
// configured) and that a method's case changes nothing — by ServeMux
// matching and by template alike.
func FuzzRoutesMethodVariants(f *testing.F) {
	for _, s := range [][2]string{
		{"/login", "POST"}, {"/login/", "post"}, {"//LOGIN", "Post"}, {"/users/7", "GET"}, {"/users/7/", "get"},
		{"/api", "GET"}, {"/api/x/../y", "DELETE"}, {"*", "OPTIONS"}, {"", "GET"}, {"/static", "HEAD"},
		{"/%6Cogin", "POST"}, {"/a/./b//c/", "PUT"},
	} {
		f.Add(s[0], s[1], "")
		f.Add(s[0], s[1], "/users/{id}")
	}
	clk := newClock()
	lim := func(n int64) *core.Limiter {
		p := core.MustPolicy("p", core.Limit{Algorithm: core.FixedWindow{Quota: n, Window: time.Hour}})
		l, err := core.NewLimiter(p, core.WithClock(clk))
		if err != nil {
			f.Fatal(err)
		}
		return l
	}
	rt := middleware.NewRoutes(lim(100))
	shared := lim(10)
	for _, p := range []string{"POST /login", "GET /users/{id}", "GET /api/", "/static/", "GET /files/{p...}"} {
		if err := rt.Add(p, shared); err != nil {
			f.Fatal(err)
		}
	}
	if err := rt.Add("DELETE /api/y", lim(1)); err != nil {
		f.Fatal(err)
	}
	sel := func(method, path, tpl string) (any, string) {
		r := &http.Request{Method: method, URL: &url.URL{Path: path}, Host: "example.com", Header: http.Header{}}
		l, s, err := rt.Select(r, tpl)
		if err != nil {
			panic(err)
		}
		if p, ok := l.(*both.Pair); ok {
			// Two routes charged (a variant's and the served one's):
			// a Pair of its own per request, equal by its parts.
			return [2]any{p.Lims, p.Scopes}, s
		}
		return l, s
	}
	f.Fuzz(func(t *testing.T, path, method, tpl string) {
		if method == "" || strings.ContainsAny(method, " \t") {
			return
		}
		l1, s1 := sel(method, path, tpl)
		l2, s2 := sel(strings.ToUpper(method), path, tpl)
		l3, s3 := sel(strings.ToLower(method), path, tpl)
		if l1 != l2 || s1 != s2 || l1 != l3 || s1 != s3 {
			t.Fatalf("%q %q (template %q): method case changes the route: %q / %q / %q", method, path, tpl, s1, s2, s3)
		}
		if strings.EqualFold(method, "HEAD") {
			lg, sg := sel("GET", path, tpl)
			if lg != l1 || sg != s1 {
				t.Fatalf("HEAD %q (template %q) selects scope %q, GET selects %q", path, tpl, s1, sg)
			}
		}
	})
}
