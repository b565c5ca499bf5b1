package middleware_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A route pattern that ServeMux accepts but that no request a client sends
// reaches as written was added without an error, and its limit limited
// nothing: a pasted no-break space between method and path ("POST\u00a0
// /login" is a host), a URL, a port or an upper-case host (ServeMux drops
// the request's port, Routes matches its host in lower case), a method
// list or wildcard, a query or a fragment in the path, two patterns in
// one. Config files were checked (config's attack_cfg37 tests); Go code
// giving the same patterns to Routes was not. Now Add and Share refuse
// them, with the byte of the mistake.
func TestAttackRoutesPatternMatchingNoRequestRefused(t *testing.T) {
	for _, p := range []string{
		"POST\u00a0/login",
		"POST /login\u200b",
		"https://api.example.com/login",
		"api.example.com:8080/x",
		"API.example.com/x",
		"café.example/x",
		"2001:DB8::1/x",
		"api.example.com./x",
		"GET|POST /x",
		"* /x",
		"ANY /x",
		"GET /search?q=1",
		"GET /page#top",
		"GET /login ",
		"POST /login, POST /signup",
		"POST /login\n",
		"[::1]/x", // "::1/x" matches "[::1]" and "[::1]:8080"; this, "[::1]" alone
	} {
		rt := middleware.NewRoutes(nil)
		err := rt.Add(p, &charges{})
		require.Error(t, err, "%q: added, and limits no request", p)
		assert.True(t, errors.Is(err, core.ErrInvalidConfig), "%q: %v", p, err)
		assert.Contains(t, err.Error(), "at byte", p)
		require.Error(t, middleware.NewRoutes(nil).Share("g", &charges{}, "GET /ok", p), "%q in a group", p)
	}
}

// The control: patterns that look odd but that requests reach are added
// as before (a lower-case method, percent-encoding, routers' templates, a
// CONNECT's host with its port, IPv6 hosts in lower case).
func TestRoutesOddPatternsStillAdded(t *testing.T) {
	for _, p := range []string{
		"get /x", "GET\t/x", "GET /a%20b", "GET /caf%C3%A9", "GET /a%3Fb",
		"GET /users/:id", "GET /api/*", "GET /search/{q:[a-z]?}", "/files/{p...}",
		"api.example.com/x", "CONNECT example.com:443/", "CONNECT [::1]:443/", "::1/x",
		"2001:db8::1/x", "M-SEARCH /x", "GET /{$}",
	} {
		assert.NoError(t, middleware.NewRoutes(nil).Add(p, &charges{}), p)
	}
}

// An IPv6 host pattern matched half of the requests naming its host:
// ServeMux drops a request's brackets only with its port, so "::1/x"
// missed "Host: [::1]" (3 of 3 admitted at 1 an hour) and "[::1]/x" missed
// "Host: [::1]:8080", and neither matched another spelling of the
// address ("[0:0::1]"). The bracketed pattern is refused now, and the bare
// one matches them all.
func TestAttackRoutesIPv6HostWithAndWithoutPort(t *testing.T) {
	route, def := &charges{}, &charges{}
	rt := middleware.NewRoutes(def)
	require.NoError(t, rt.Add("::1/x", route))
	for _, host := range []string{"[::1]", "[::1]:8080", "[0:0::1]:80", "[0:0::1]", "[0:0::1%eth0]"} {
		r := httptest.NewRequest("GET", "/x", nil)
		r.Host = host
		lim, _, err := rt.Select(r, "")
		require.NoError(t, err)
		before := route.n
		_, err = lim.AllowN(context.Background(), "k", 1)
		require.NoError(t, err)
		assert.Equal(t, before+1, route.n, "Host: %s is charged on ::1/x", host)
	}
}
