// Package stacktest is the behaviour table every way of mounting floodgate
// must answer identically: a set of cases (algorithms, skip rules, costs,
// several limits, per-route policies, failures counted only, store failures,
// dry run), each a sequence of requests at fixed instants on a fake clock
// with the exact status, headers and body each must get.
//
// The root package's tests run it through net/http ([NetHTTP]); the
// adapters' stacks module runs it through net/http, chi, gin and echo and
// requires identical answers, so that the routers never enter the root
// module's go.mod. The package imports net/http, floodgate and testify,
// never a router.
package stacktest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/sftest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Stack serves the test application through one router: the routes
// GET /hello, GET /users/{id} and POST /login (in the router's own template
// syntax: "/users/{id}" or "/users/:id"), and /account for every method
// (a ServeMux pattern without a method, chi's Handle, gin's and echo's
// Any), each answering with handler, limited by m with the route template
// passed the router's way.
//
// PerIP, when not nil, serves the same routes, except that /hello answers
// every method, limited by the router's one-line per-IP middleware
// (middleware.PerIP, chilimit.PerIP, …) made with rate and opts, mounted on
// the whole router; the table's per-IP cases run only through stacks that
// have it.
type Stack struct {
	Name  string
	Serve func(t *testing.T, m *middleware.Middleware, handler http.HandlerFunc) http.Handler
	PerIP func(t *testing.T, rate string, opts []core.Option, handler http.HandlerFunc) http.Handler
}

// NetHTTP is the stack of net/http: a [http.ServeMux] wrapped by
// [middleware.Middleware.Handler], or by [middleware.PerIP]'s.
var NetHTTP = Stack{Name: "net/http", Serve: serveNetHTTP, PerIP: perIPNetHTTP}

func perIPNetHTTP(t *testing.T, rate string, opts []core.Option, h http.HandlerFunc) http.Handler {
	m, err := middleware.PerIP(rate, opts...)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/hello", h)
	mux.Handle("GET /users/{id}", h)
	mux.Handle("POST /login", h)
	return m.Handler(mux)
}

func serveNetHTTP(_ *testing.T, m *middleware.Middleware, h http.HandlerFunc) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /hello", h)
	mux.Handle("GET /users/{id}", h)
	mux.Handle("POST /login", h)
	mux.Handle("/account", h)
	return m.Handler(mux)
}

// Run runs every behaviour through every stack, each in a subtest named
// after the behaviour: each stack must see exactly the expected answers, and
// every stack the same answers as the first.
func Run(t *testing.T, stacks ...Stack) {
	t.Helper()
	require.NotEmpty(t, stacks)
	for _, b := range behaviours() {
		t.Run(b.name, func(t *testing.T) {
			var first []answer
			var firstName string
			for _, s := range stacks {
				if b.perIP != "" && s.PerIP == nil {
					continue
				}
				got := runBehaviour(t, s, b)
				if first == nil {
					first, firstName = got, s.Name
					continue
				}
				assert.Equal(t, first, got, "%s differs from %s", s.Name, firstName)
			}
			require.NotNil(t, first, "no stack ran %s", b.name)
		})
	}
}

// answer is what a client observes.
type answer struct {
	Status  int
	Headers map[string]string
	Body    string
}

var observed = []string{
	"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit",
	"Retry-After", "Content-Type",
}

func runBehaviour(t *testing.T, s Stack, b behaviour) []answer {
	clk := coretest.NewClock(t0)
	var status int
	var reached bool
	handler := func(w http.ResponseWriter, _ *http.Request) {
		reached = true
		w.WriteHeader(status)
		_, _ = w.Write([]byte("ok"))
	}
	var h http.Handler
	if b.perIP != "" {
		h = s.PerIP(t, b.perIP, []core.Option{core.WithClock(clk)}, handler)
	} else {
		h = s.Serve(t, b.build(t, clk), handler)
	}
	var out []answer
	for i, c := range b.calls {
		clk.Set(t0.Add(c.at))
		status = c.status
		if status == 0 {
			status = http.StatusOK
		}
		method, path, remote := c.method, c.path, c.remote
		if method == "" {
			method = http.MethodGet
		}
		if path == "" {
			path = "/hello"
		}
		if remote == "" {
			remote = "192.0.2.1:1234"
		}
		r := httptest.NewRequest(method, path, nil)
		r.RemoteAddr = remote
		for k, v := range c.request {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		reached = false
		h.ServeHTTP(w, r)
		msg := s.Name + " call " + strconv.Itoa(i)
		a := answer{Status: w.Code, Headers: map[string]string{}, Body: w.Body.String()}
		if c.routed {
			// Admitted, and answered by the router itself, in its own
			// way (404, 405, echo's 204): the limiter's headers are
			// compared, not the router's answer.
			require.NotEqual(t, http.StatusTooManyRequests, w.Code, msg)
			require.False(t, reached, "%s: the handler serves no %s", msg, method)
			a.Status, a.Body = 0, ""
		} else {
			require.Equal(t, c.want, w.Code, msg)
		}
		for _, k := range observed {
			if !c.routed || k != "Content-Type" {
				a.Headers[k] = w.Header().Get(k)
			}
		}
		for k, v := range c.headers {
			assert.Equal(t, v, w.Header().Get(k), "%s: %s", msg, k)
		}
		if c.body != "" {
			assert.Equal(t, c.body, w.Body.String(), msg)
		}
		checkInvariants(t, msg, w)
		out = append(out, a)
	}
	return out
}

// checkInvariants holds for every answer: the IETF fields parse as RFC 9651
// lists, and every 429 says Remaining 0, a Retry-After ≥ 1 and a
// quota-exceeded problem.
func checkInvariants(t *testing.T, msg string, w *httptest.ResponseRecorder) {
	t.Helper()
	if v := w.Header().Get("RateLimit-Policy"); v != "" {
		_, err := sftest.CheckPolicy11(v)
		assert.NoError(t, err, msg)
	}
	if v := w.Header().Get("RateLimit"); v != "" {
		_, err := sftest.CheckRateLimit11(v)
		assert.NoError(t, err, msg)
	}
	if w.Code == http.StatusRequestEntityTooLarge {
		assert.Empty(t, w.Header().Get("Retry-After"), "%s: no wait lets it pass", msg)
		assert.Contains(t, w.Body.String(), middleware.ProblemType, msg)
		return
	}
	if w.Code != http.StatusTooManyRequests {
		return
	}
	assert.Equal(t, "0", w.Header().Get("X-RateLimit-Remaining"), msg)
	ra, err := strconv.Atoi(w.Header().Get("Retry-After"))
	require.NoError(t, err, msg)
	assert.GreaterOrEqual(t, ra, 1, msg)
	var p struct {
		Type     string   `json:"type"`
		Status   int      `json:"status"`
		Violated []string `json:"violated-policies"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &p), msg)
	assert.Equal(t, middleware.ProblemType, p.Type, msg)
	assert.Equal(t, 429, p.Status, msg)
	assert.NotEmpty(t, p.Violated, msg)
}
