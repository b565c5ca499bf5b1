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
// configured), and that a method's case never limits more loosely: a
// method not written canonically is charged on every route its canonical
// form is (and, matched by ServeMux as written, perhaps on the pattern
// that reaches: see TestAttackMethodCaseLooserThanServedRoute), by
// ServeMux matching and by template alike; by template, on the same ones.
// Its table holds glob routes too (see routepath.Glob), so that a request
// charged on the most routes it can be is tried.
func FuzzRoutesMethodVariants(f *testing.F) {
	for _, s := range [][2]string{
		{"/login", "POST"}, {"/login/", "post"}, {"//LOGIN", "Post"}, {"/users/7", "GET"}, {"/users/7/", "get"},
		{"/api", "GET"}, {"/api/x/../y", "DELETE"}, {"*", "OPTIONS"}, {"", "GET"}, {"/static", "HEAD"},
		{"/%6Cogin", "POST"}, {"/a/./b//c/", "PUT"}, {"/admin/PUBLIC", "get"}, {"/x/", "get"},
		{"/v2/x", "GET"}, {"/staticfoo", "head"}, {"/f/a.b", "GET"}, {"/lo/", "Post"}, {"/v2/x/", "get"},
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
	// Glob routes (a parameter after text in a segment), overlapping
	// each other and the routes above: a request may be charged on five.
	for _, p := range []string{"DELETE /api/y", "GET /admin/", "GET /admin/public", "GET /x/", "/x", "GET /v:version/x", "/static*", "GET /f/{name}.{ext}", "POST /lo:x", "/l:x/"} {
		if err := rt.Add(p, lim(1)); err != nil {
			f.Fatal(err)
		}
	}
	// sel returns the limiters and scopes Select charges, one for a
	// route, two for a Pair (a Pair of its own per request, equal by its
	// parts).
	type part struct {
		l any
		s string
	}
	sel := func(method, path, tpl string) map[part]bool {
		r := &http.Request{Method: method, URL: &url.URL{Path: path}, Host: "example.com", Header: http.Header{}}
		l, s, err := rt.Select(r, tpl)
		if err != nil {
			panic(err)
		}
		if p, ok := l.(*both.Pair); ok {
			parts := map[part]bool{}
			for _, pt := range p.Parts() {
				parts[part{pt.Lim, pt.Scope}] = true
			}
			return parts
		}
		return map[part]bool{{l, s}: true}
	}
	covers := func(a, b map[part]bool) bool {
		for p := range b {
			if !a[p] {
				return false
			}
		}
		return true
	}
	f.Fuzz(func(t *testing.T, path, method, tpl string) {
		if method == "" || strings.ContainsAny(method, " \t") {
			return
		}
		canon := sel(strings.ToUpper(method), path, tpl)
		for _, m := range []string{method, strings.ToLower(method)} {
			got := sel(m, path, tpl)
			if !covers(got, canon) || tpl != "" && len(got) != len(canon) {
				t.Fatalf("%q %q (template %q): method case %q charges %v, its canonical form %v", method, path, tpl, m, got, canon)
			}
		}
		if method == "HEAD" {
			if g := sel("GET", path, tpl); len(g) != len(canon) || !covers(g, canon) {
				t.Fatalf("HEAD %q (template %q) charges %v, GET %v", path, tpl, canon, g)
			}
		}
	})
}
