package middleware_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRpat37HostPatternNoRequestReaches: host patterns the route
// check let through, whose limit no request a client sends (or only one
// spelling of its host) reaches. An IPv6 address not in its canonical
// form ("0:0::1", "2001:0db8::1", "::ffff:7f00:1") is compared by
// ServeMux as written, and Routes canonicalises the request's host, not
// the pattern's: of 6 requests naming the address ("[::1]:8080", "[::1]",
// even "[0:0::1]" without a port, "[::ffff:127.0.0.1]:80",
// "[2001:db8::1]:443" twice) and a CONNECT to "[::1]:443", all 7 were
// charged on the default, none on the route. A host with an empty label
// (".example.com", nginx's "this domain and its subdomains";
// "example..com"; a CONNECT's "example.com.:443") names no host a client
// resolves: 4 of 4 requests for example.com and www.example.com went to
// the default. Now Add refuses them, naming the canonical spelling.
func TestAttackRpat37HostPatternNoRequestReaches(t *testing.T) {
	for _, c := range []struct{ pat, method, host, want string }{
		{"0:0::1/x", "GET", "[::1]:8080", "::1"},
		{"0:0::1/x", "GET", "[::1]", "::1"},
		{"0:0::1/x", "GET", "[0:0::1]", "::1"},
		{"::ffff:7f00:1/x", "GET", "[::ffff:127.0.0.1]:80", "::ffff:127.0.0.1"},
		{"2001:db8:0:0:0:0:0:1/x", "GET", "[2001:db8::1]:443", "2001:db8::1"},
		{"2001:0db8::1/x", "GET", "[2001:db8::1]:443", "2001:db8::1"},
		{"CONNECT [0:0::1]:443/", "CONNECT", "[::1]:443", "::1"},
		{".example.com/x", "GET", "www.example.com", "empty label"},
		{".example.com/x", "GET", "example.com", "empty label"},
		{"example..com/x", "GET", "example.com", "empty label"},
		{"CONNECT example.com.:443/", "CONNECT", "example.com:443", "trailing dot"},
	} {
		err := middleware.NewRoutes(nil).Add(c.pat, &charges{})
		if err == nil {
			route, def := &charges{}, &charges{}
			rt := middleware.NewRoutes(def)
			require.NoError(t, rt.Add(c.pat, route))
			r := httptest.NewRequest(c.method, "/x", nil)
			r.Host = c.host
			lim, _, serr := rt.Select(r, "")
			require.NoError(t, serr)
			_, _ = lim.AllowN(context.Background(), "k", 1)
			assert.Failf(t, "added", "%q: Host %s charged %d on the route, %d on the default", c.pat, c.host, route.n, def.n)
			continue
		}
		assert.True(t, errors.Is(err, core.ErrInvalidConfig), "%q: %v", c.pat, err)
		assert.Contains(t, err.Error(), c.want, c.pat)
	}
}

// TestRpat37HostPatternsStillAdded: the canonical spellings, and hosts
// that only look odd, are added as before.
func TestRpat37HostPatternsStillAdded(t *testing.T) {
	for _, p := range []string{
		"::1/x", "2001:db8::1/x", "::ffff:127.0.0.1/x", "fe80::1/x", "CONNECT [::1]:443/",
		"CONNECT example.com:443/", "_dmarc.example.com/x", "a.b-c.example/x",
		"127.0.0.1/x", "localhost/x", "xn--caf-dma.example/x",
	} {
		assert.NoError(t, middleware.NewRoutes(nil).Add(p, &charges{}), p)
	}
}

// TestRpat37JoinerInPathAdded: a zero-width non-joiner (U+200C) is part
// of Persian spelling ("می‌خواهم"), a zero-width joiner (U+200D) of emoji
// sequences ("👨‍💻"); ServeMux matches a path holding them (sent
// percent-encoded), yet the route check refused all three (3 of 3) as
// holding an invisible character. A joiner between two characters that
// are not ASCII passes now, and its request is charged on the route;
// beside ASCII ("/log\u200din"), or before the path, it is refused still.
func TestRpat37JoinerInPathAdded(t *testing.T) {
	for _, c := range []struct{ pat, path string }{
		{"GET /fa/\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "/fa/%D9%85%DB%8C%E2%80%8C%D8%AE%D9%88%D8%A7%D9%87%D9%85"},
		{"GET /e/\U0001F468\u200d\U0001F4BB", "/e/%F0%9F%91%A8%E2%80%8D%F0%9F%92%BB"},
		{"/e/\u2764\ufe0f\u200d\U0001F525/x", "/e/%E2%9D%A4%EF%B8%8F%E2%80%8D%F0%9F%94%A5/x"},
	} {
		route, def := &charges{}, &charges{}
		rt := middleware.NewRoutes(def)
		if !assert.NoError(t, rt.Add(c.pat, route), "%q", c.pat) {
			continue
		}
		lim, _, err := rt.Select(httptest.NewRequest("GET", c.path, nil), "")
		require.NoError(t, err)
		_, _ = lim.AllowN(context.Background(), "k", 1)
		assert.Equal(t, 1, route.n, "%q: charged on the route", c.pat)
		assert.Zero(t, def.n, "%q: charged on the default", c.pat)
	}
	for _, p := range []string{
		"GET /log\u200din", "GET /\u200c", "GET\u200c/x", "GET /x\u200c", "\u0645\u200c\u0645/x",
		"GET /\u0645\u200b\u0645", "GET /\u0645\u200c\u200c\u0645",
	} {
		assert.Error(t, middleware.NewRoutes(nil).Add(p, &charges{}), "%q", p)
	}
}

// TestAttackRpat37ChiNestedBraceRegexp: chi counts braces to find the end
// of a parameter, so "{id:[0-9]{2}}" is one parameter (chi's own tests
// route "/articles/{rid:^[0-9]{5,6}}"), and the route check passes it;
// but MuxPath took a segment with nested braces for malformed and left it
// for ServeMux, which refused "GET /users/{id:[0-9]{2}}" (bad wildcard
// name: 1 legit route of 1 refused) and, beside a parameter MuxPath did
// rewrite, failed to register "GET /users/{id:[0-9]{2}}/{name}" without
// a word: the route was found by its template only, and a request whose
// template is not known (a limiter mounted before the router) was
// charged on the default (3 of 3). Now the segment is one parameter.
func TestAttackRpat37ChiNestedBraceRegexp(t *testing.T) {
	assert.NoError(t, middleware.NewRoutes(nil).Add("GET /users/{id:[0-9]{2}}", &charges{}), "a chi regexp with nested braces")
	other, def := &charges{}, &charges{}
	rt := middleware.NewRoutes(def)
	require.NoError(t, rt.Add("GET /users/{id:[0-9]{2}}/{name}", other))
	for range 3 {
		lim, _, err := rt.Select(httptest.NewRequest("GET", "/users/12/bob", nil), "")
		require.NoError(t, err)
		_, _ = lim.AllowN(context.Background(), "k", 1)
	}
	assert.Equal(t, 3, other.n, "charged on the route")
	assert.Zero(t, def.n, "charged on the default")
}

// TestAttackRpat37ConnectHostWithoutPort: a CONNECT request names its
// target with its port ("CONNECT example.com:443"), and ServeMux matches a
// CONNECT pattern's host against it as sent, port and all; a pattern of
// CONNECT naming its host without one ("CONNECT example.com/", the way a
// host is written everywhere else) was added and matched no CONNECT a
// client sends (2 of 2 charged on the default only). It is refused now,
// asking for the port.
func TestAttackRpat37ConnectHostWithoutPort(t *testing.T) {
	for _, c := range []struct{ pat, target string }{
		{"CONNECT example.com/", "example.com:443"},
		{"connect ::1/", "[::1]:443"},
	} {
		route, def := &charges{}, &charges{}
		rt := middleware.NewRoutes(def)
		err := rt.Add(c.pat, route)
		if err == nil {
			r, rerr := http.ReadRequest(bufio.NewReader(strings.NewReader("CONNECT " + c.target + " HTTP/1.1\r\nHost: " + c.target + "\r\n\r\n")))
			require.NoError(t, rerr)
			lim, _, serr := rt.Select(r, "")
			require.NoError(t, serr)
			_, _ = lim.AllowN(context.Background(), "k", 1)
			assert.Failf(t, "added", "%q: CONNECT %s charged %d on the route, %d on the default", c.pat, c.target, route.n, def.n)
			continue
		}
		assert.ErrorIs(t, err, core.ErrInvalidConfig, c.pat)
		assert.Contains(t, err.Error(), "port", c.pat)
	}
	assert.NoError(t, middleware.NewRoutes(nil).Add("CONNECT /", &charges{}), "every CONNECT")
}
