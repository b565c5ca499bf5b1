package middleware_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
)

func TestZZProbe(t *testing.T) {
	type c struct{ pat, method, host, path, tmpl string }
	for _, x := range []c{
		{"a{b/x/:id", "GET", "a{b", "/x/1", ""},
		{"example.com{/x/:id", "GET", "example.com", "/x/1", ""},
		{"GET /users/:id/{$}/x", "GET", "h", "/users/1/x", ""},
		{"GET /users/:id/x{", "GET", "h", "/users/1/x{", ""},
		{"GET /users/:id/{a}{b}", "GET", "h", "/users/1/ab", ""},
		{"GET /users/:id/{a b}", "GET", "h", "/users/1/ab", ""},
		{"GET /users/:id/{{a}}", "GET", "h", "/users/1/ab", ""},
		{"GET /users/{id:[0-9]{2}}", "GET", "h", "/users/12", ""},
		{"GET /users/{id:[0-9]{2}}/:x", "GET", "h", "/users/12/a", ""},
		{"GET /f/*/x", "GET", "h", "/f/a/x", ""},
		{"GET /login{$}", "GET", "h", "/login", ""},
		{"GET /login{$}", "GET", "h", "/other", ""},
		{"GET /{$}x", "GET", "h", "/x", ""},
		{"GET /:", "GET", "h", "/:", ""},
		{"GET /a/:/b", "GET", "h", "/a/:/b", ""},
		{"GET /a/:id:x", "GET", "h", "/a/1", ""},
		{"GET /a/*x/y", "GET", "h", "/a/1/y", ""},
		{"GET /a/{x...}/y", "GET", "h", "/a/1/y", ""},
		{"GET /a/{x...}", "GET", "h", "/a/1/y", ""},
		{"GET /a/{...}", "GET", "h", "/a/1/y", ""},
		{"GET /a/%7Bx%7D", "GET", "h", "/a/%7Bx%7D", ""},
		{"GET /a/%zz", "GET", "h", "/a/%25zz", ""},
		{"GET /a/%2F", "GET", "h", "/a/%2F", ""},
		{"GET /a/%2f", "GET", "h", "/a/%2F", ""},
		{"GET /a%", "GET", "h", "/a%25", ""},
	} {
		route, def := &charges{}, &charges{}
		rt := middleware.NewRoutes(def)
		if err := rt.Add(x.pat, route); err != nil {
			t.Logf("%-40q REFUSED: %v", x.pat, err)
			continue
		}
		r := httptest.NewRequest(x.method, "http://h"+x.path, nil)
		r.Host = x.host
		lim, _, err := rt.Select(r, x.tmpl)
		if err != nil {
			t.Logf("%q select err %v", x.pat, err)
			continue
		}
		if lim != nil {
			_, _ = lim.AllowN(context.Background(), "k", 1)
		}
		t.Logf("%-40q accepted; %s %s%s -> route %d def %d", x.pat, x.method, x.host, x.path, route.n, def.n)
	}
}
