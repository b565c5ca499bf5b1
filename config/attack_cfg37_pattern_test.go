package config_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// patternCase is a route pattern of a 1/hour policy and a request the
// operator meant it to limit.
type patternCase struct {
	pattern, method, host, target string
}

// admitted loads the route pattern of c under a 1/hour policy and returns
// how many of 3 requests of c it admits, or the load's error.
func (c patternCase) admitted(t *testing.T) (int, error) {
	t.Helper()
	src := "policies: {strict: 1/hour}\nroutes:\n  - pattern: " + strconv.Quote(c.pattern) + "\n    policy: strict\n"
	l, err := config.Parse("t.yaml", []byte(src), options(coretest.NewClock(t0)))
	if err != nil {
		return 0, err
	}
	t.Cleanup(func() { require.NoError(t, l.Close()) })
	h, n := l.Handler(ok), 0
	for range 3 {
		r := httptest.NewRequest(c.method, c.target, nil)
		if c.host != "" {
			r.Host = c.host
		}
		r.RemoteAddr = "192.0.2.1:1"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code == http.StatusOK {
			n++
		}
	}
	return n, nil
}

// A route pattern that ServeMux accepts may still match no request a
// client sends: the file loaded, and the route limited nothing. Before,
// under "limit 1/hour", each of these admitted 3 of 3 of the requests it
// was written for: a no-break space (or a zero-width one) pasted between
// the method and the path made "POST\u00a0/login" a host pattern; a URL, a
// host with a port (ServeMux drops the request's), a host in upper case
// (an IPv6 address's too), with a trailing dot, or not in ASCII (Routes
// matches hosts in lower case and without the dot, clients send
// punycode); a method list ("GET|POST") or wildcard ("*", "ANY") taken as
// one method of that name; a query or fragment, a trailing space, or two
// patterns in one string, in the path. Each is now an error at load, at
// the pattern.
func TestAttackPatternMatchingNoRequestRefused(t *testing.T) {
	for _, c := range []patternCase{
		{"POST\u00a0/login", "POST", "", "/login"},
		{"POST /login\u200b", "POST", "", "/login"},
		{"https://api.example.com/login", "GET", "api.example.com", "/login"},
		{"api.example.com:8080/x", "GET", "api.example.com:8080", "/x"},
		{"API.example.com/x", "GET", "api.example.com", "/x"},
		{"café.example/x", "GET", "xn--caf-dma.example", "/x"},
		{"2001:DB8::1/x", "GET", "[2001:db8::1]:80", "/x"},
		{"api.example.com./x", "GET", "api.example.com", "/x"},
		{"GET|POST /x", "POST", "", "/x"},
		{"* /x", "POST", "", "/x"},
		{"ANY /x", "POST", "", "/x"},
		{"GET /search?q=1", "GET", "", "/search?q=1"},
		{"GET /page#top", "GET", "", "/page"},
		{"GET /login ", "GET", "", "/login"},
		{"POST /login, POST /signup", "POST", "", "/login"},
		{"POST /login\n", "POST", "", "/login"}, // a block scalar, | or >
	} {
		n, err := c.admitted(t)
		if err == nil {
			t.Errorf("%q loaded: limit 1/hour, %s %s%s: %d of 3 admitted", c.pattern, c.method, c.host, c.target, n)
			continue
		}
		assert.ErrorIs(t, err, core.ErrInvalidConfig, c.pattern)
		assert.Contains(t, err.Error(), "t.yaml:3:", c.pattern)
	}
}

// A pattern written as a block scalar (| or >, for a long one) keeps its
// line break: before, "limit 1/hour" admitted 3 of 3 POST /login.
func TestAttackPatternBlockScalarRefused(t *testing.T) {
	for _, style := range []string{"|", ">"} {
		src := "policies: {strict: 1/hour}\nroutes:\n  - pattern: " + style + "\n      POST /login\n    policy: strict\n"
		l, err := config.Parse("t.yaml", []byte(src), options(coretest.NewClock(t0)))
		if err == nil {
			c := client{h: l.Handler(ok), remote: "192.0.2.1:1"}
			t.Errorf("pattern: %s loaded: limit 1/hour, %d of 3 POST /login admitted", style, c.served("POST", "/login", 3))
			require.NoError(t, l.Close())
			continue
		}
		assert.ErrorIs(t, err, core.ErrInvalidConfig)
		assert.Contains(t, err.Error(), "ends in a line break")
	}
}

// The error points at the mistake when the pattern is written as is.
func TestPatternErrorColumn(t *testing.T) {
	_, err := config.Parse("t.yaml", []byte("policies: {p: 1/min}\nroutes:\n  - pattern: GET /search?q=1\n    policy: p\n"), config.Options{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "t.yaml:3:25: routes[0]: pattern \"GET /search?q=1\": '?' starts a query")
}

// What held: patterns that look odd but match their requests still load
// and limit them (1 of 3 admitted): a method in lower case, HEAD under
// GET, percent-encoding, a router's templates (":id", "*", a chi
// parameter holding '?'), a host matched without the request's port or
// case, a CONNECT host with its port, an IPv6 host.
func TestPatternsMatchingTheirRequestsStillLoad(t *testing.T) {
	for _, c := range []patternCase{
		{"get /x", "GET", "", "/x"},
		{"GET /x", "HEAD", "", "/x"},
		{"GET\t/x", "GET", "", "/x"},
		{"GET /a%20b", "GET", "", "/a%20b"},
		{"GET /caf%C3%A9", "GET", "", "/caf%C3%A9"},
		{"GET /a%3Fb", "GET", "", "/a%3Fb"},
		{"GET /users/:id", "GET", "", "/users/42"},
		{"GET /api/*", "GET", "", "/api/x"},
		{"GET /search/{q:[a-z]?}", "GET", "", "/search/a"},
		{"api.example.com/x", "GET", "API.EXAMPLE.COM:8080", "/x"},
		{"CONNECT example.com:443/", "CONNECT", "example.com:443", "/"},
		{"::1/x", "GET", "[::1]:8080", "/x"},
		{"::1/x", "GET", "[::1]", "/x"},
		{"2001:db8::1/x", "GET", "[2001:DB8::1]:80", "/x"},
		{"api.example.com/x", "GET", "api.example.com.", "/x"},
		{"M-SEARCH /x", "M-SEARCH", "", "/x"},
	} {
		n, err := c.admitted(t)
		if assert.NoError(t, err, c.pattern) {
			assert.Equal(t, 1, n, "%q: %s %s%s", c.pattern, c.method, c.host, c.target)
		}
	}
}
