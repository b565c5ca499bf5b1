package stacktest

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

// t0 is Unix second 1767323045: 5 s into an epoch-aligned 10 s window.
var t0 = time.Unix(1767323045, 0).UTC()

const t0s = 1767323045

// call is one request of a behaviour case and what its answer must be.
type call struct {
	at      time.Duration     // since t0, on the limiter's fake clock
	method  string            // GET when empty
	path    string            // /hello when empty
	remote  string            // 192.0.2.1:1234 when empty
	request map[string]string // header fields of the request
	status  int               // of the handler (200 when 0): what it answers if reached
	want    int               // the status the client must see
	// routed says that the request is admitted but reaches no handler:
	// the router answers it its own way, and only the limiter's headers
	// are compared (want is not used).
	routed  bool
	headers map[string]string
	body    string // the exact body, when not empty
}

// behaviour is a case of the table every stack runs: a Middleware build
// gives, or, when perIP is set, the stack's one-line per-IP middleware at
// that rate.
type behaviour struct {
	name  string
	build func(t *testing.T, clk core.Clock) *middleware.Middleware
	perIP string
	calls []call
}

func single(t *testing.T, clk core.Clock, a core.Algorithm, opts middleware.Options) *middleware.Middleware {
	t.Helper()
	p, err := core.Single("api", a)
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	m, err := middleware.New(l, opts)
	require.NoError(t, err)
	return m
}

// hdr builds the expected headers of an answer.
func hdr(limit, remaining, reset int64, policy, ratelimit string, retry int64) map[string]string {
	h := map[string]string{
		"X-RateLimit-Limit":     strconv.FormatInt(limit, 10),
		"X-RateLimit-Remaining": strconv.FormatInt(remaining, 10),
		"X-RateLimit-Reset":     strconv.FormatInt(t0s+reset, 10),
		"RateLimit-Policy":      policy,
		"RateLimit":             ratelimit,
		"Retry-After":           "",
	}
	if retry > 0 {
		h["Retry-After"] = strconv.FormatInt(retry, 10)
	}
	return h
}

// twoPerTen is 2 per 10 s through an algorithm whose three calls at t0
// answer with exactly these headers (derived by hand: see each case). On
// the denial X-RateLimit-Reset, like Retry-After, says when it passes.
func twoPerTen(name string, a core.Algorithm, reset1, reset2, retry3 int64) behaviour {
	pol := `"api";q=2;w=10`
	return behaviour{
		name: name,
		build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
			return single(t, clk, a, middleware.Options{})
		},
		calls: []call{
			{want: 200, headers: hdr(2, 1, reset1, pol, `"api";r=1;t=`+strconv.FormatInt(reset1, 10), 0)},
			{want: 200, headers: hdr(2, 0, reset2, pol, `"api";r=0;t=`+strconv.FormatInt(reset2, 10), 0)},
			{want: 429, headers: hdr(2, 0, retry3, pol, `"api";r=0;t=`+strconv.FormatInt(retry3, 10), retry3)},
		},
	}
}

func behaviours() []behaviour {
	ten := 10 * time.Second
	return []behaviour{
		// GCRA: I = 5 s, τ = 10 s. Call 1: TAT t0+5; call 2: t0+10; call 3
		// would need TAT t0+15: denied, 5 s to wait.
		twoPerTen("GCRA", core.GCRA{Rate: core.Per(2, ten)}, 5, 10, 5),
		// TokenBucket: 0.2 token/s; the same instants as GCRA.
		twoPerTen("TokenBucket", core.TokenBucket{Rate: core.Per(2, ten)}, 5, 10, 5),
		// LeakyBucket, meter form: GCRA's numbers, no delay.
		twoPerTen("LeakyBucket", core.LeakyBucket{Rate: core.Per(2, ten), Capacity: 2, NoDelay: 2}, 5, 10, 5),
		// FixedWindow: t0 is 5 s into [t0−5, t0+5): everything resets in 5 s.
		twoPerTen("FixedWindow", core.FixedWindow{Quota: 2, Window: ten}, 5, 5, 5),
		// SlidingLog: both entries at t0 leave the trailing window at t0+10.
		twoPerTen("SlidingLog", core.SlidingLog{Quota: 2, Window: ten}, 10, 10, 10),
		{
			name: "skip",
			build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
				return single(t, clk, core.GCRA{Rate: core.PerHour(1)}, middleware.Options{
					Skip: func(r *http.Request) bool { return r.URL.Path == "/hello" },
				})
			},
			calls: []call{
				{want: 200, headers: map[string]string{"X-RateLimit-Limit": "", "RateLimit": ""}},
				{want: 200}, {want: 200},
				{path: "/users/1", want: 200, headers: map[string]string{"X-RateLimit-Remaining": "0"}},
				{path: "/users/2", want: 429},
				{want: 200},
			},
		},
		{
			// FixedWindow 5 per 10 s, t0 5 s into the window; a login
			// costs 3. A denial for cost leaves the remaining units to
			// cheaper requests.
			name: "custom cost",
			build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
				return single(t, clk, core.FixedWindow{Quota: 5, Window: 10 * time.Second}, middleware.Options{
					Cost: func(r *http.Request) int64 {
						if r.URL.Path == "/login" {
							return 3
						}
						return 1
					},
				})
			},
			calls: []call{
				{method: "POST", path: "/login", want: 200, headers: hdr(5, 2, 5, `"api";q=5;w=10`, `"api";r=2;t=5`, 0)},
				{method: "POST", path: "/login", want: 429, headers: map[string]string{"Retry-After": "5"}},
				{want: 200, headers: map[string]string{"X-RateLimit-Remaining": "1"}},
				{want: 200, headers: map[string]string{"X-RateLimit-Remaining": "0"}},
				{want: 429, headers: map[string]string{"Retry-After": "5"}},
				{at: 5 * time.Second, method: "POST", path: "/login", want: 200, headers: map[string]string{"X-RateLimit-Remaining": "2"}},
			},
		},
		twoLimits(),
		{
			// A cost beyond the burst can never pass: 413, not 429, and no
			// Retry-After; the limit's state is untouched.
			name: "cost beyond the quota",
			build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
				return single(t, clk, core.GCRA{Rate: core.Per(2, 10*time.Second)}, middleware.Options{
					Cost: func(r *http.Request) int64 {
						if r.Method == http.MethodPost {
							return 3
						}
						return 1
					},
				})
			},
			calls: []call{
				{method: "POST", path: "/login", want: 413, headers: map[string]string{
					"Retry-After": "", "X-RateLimit-Remaining": "0", "Content-Type": "application/problem+json"}},
				{want: 200, headers: map[string]string{"X-RateLimit-Remaining": "1"}},
			},
		},
		{
			name: "key isolation and recovery",
			build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
				return single(t, clk, core.GCRA{Rate: core.PerMinute(1)}, middleware.Options{})
			},
			calls: []call{
				{want: 200}, {want: 429},
				{remote: "192.0.2.2:1", want: 200},
				{remote: "[2001:db8::1]:1", want: 200},
				{remote: "[2001:db8::2]:1", want: 429}, // same /64
				{at: 59 * time.Second, want: 429, headers: map[string]string{"Retry-After": "1"}},
				{at: 60 * time.Second, want: 200},
			},
		},
		{
			name: "per-route policies",
			build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
				mk := func(n int64) *core.Limiter {
					l, err := core.NewLimiter(core.MustPolicy("r", core.Limit{Name: "r", Algorithm: core.FixedWindow{Quota: n, Window: time.Hour}}), core.WithClock(clk))
					require.NoError(t, err)
					return l
				}
				rt := middleware.NewRoutes(nil)
				require.NoError(t, rt.Share("hello", mk(1), routePatterns["hello"]...))
				require.NoError(t, rt.Share("users", mk(2), routePatterns["users"]...))
				m, err := middleware.NewSelect(rt, middleware.Options{})
				require.NoError(t, err)
				return m
			},
			calls: []call{
				{path: "/hello", want: 200}, {path: "/hello", want: 429},
				{path: "/users/1", want: 200, headers: map[string]string{"X-RateLimit-Remaining": "1"}},
				{path: "/users/2", want: 200, headers: map[string]string{"X-RateLimit-Remaining": "0"}},
				{path: "/users/3", want: 429},
				{method: "POST", path: "/login", want: 200, headers: map[string]string{"X-RateLimit-Limit": ""}},
			},
		},
		{
			// /account serves every method with one handler: each is limited
			// by the route "POST /account", in its bucket.
			name: "a handler of every method",
			build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
				l, err := core.NewLimiter(core.MustPolicy("r", core.Limit{Name: "r", Algorithm: core.FixedWindow{Quota: 2, Window: time.Hour}}), core.WithClock(clk))
				require.NoError(t, err)
				rt := middleware.NewRoutes(nil)
				require.NoError(t, rt.Add("POST /account", l))
				m, err := middleware.NewSelect(rt, middleware.Options{})
				require.NoError(t, err)
				return m
			},
			calls: []call{
				{method: "POST", path: "/account", want: 200, headers: map[string]string{"X-RateLimit-Remaining": "1"}},
				{method: "PUT", path: "/account", want: 200, headers: map[string]string{"X-RateLimit-Remaining": "0"}},
				{method: "DELETE", path: "/account", want: 429},
				{method: "PATCH", path: "/account", want: 429},
				{method: "GET", path: "/account?password=guess", want: 429},
				{method: "HEAD", path: "/account", want: 429},
				{method: "OPTIONS", path: "/account", want: 429},
				{method: "POST", path: "/account", want: 429},
				{method: "POST", path: "/login", want: 200, headers: map[string]string{"X-RateLimit-Limit": ""}},
			},
		},
		{
			name: "count only failures",
			build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
				return single(t, clk, core.GCRA{Rate: core.PerHour(2)}, middleware.Options{CountIf: func(s int) bool { return s >= 400 }})
			},
			calls: []call{
				{method: "POST", path: "/login", status: 200, want: 200},
				{method: "POST", path: "/login", status: 200, want: 200},
				{method: "POST", path: "/login", status: 200, want: 200},
				{method: "POST", path: "/login", status: 401, want: 401},
				{method: "POST", path: "/login", status: 401, want: 401},
				{method: "POST", path: "/login", status: 200, want: 429},
			},
		},
		{
			name: "fail closed",
			build: func(t *testing.T, _ core.Clock) *middleware.Middleware {
				m, err := middleware.New(brokenLimiter{}, middleware.Options{})
				require.NoError(t, err)
				return m
			},
			calls: []call{{want: 503, headers: map[string]string{"Retry-After": "1", "Content-Type": "application/problem+json"}}},
		},
		{
			name: "fail open",
			build: func(t *testing.T, _ core.Clock) *middleware.Middleware {
				m, err := middleware.New(brokenLimiter{}, middleware.Options{FailOpen: true})
				require.NoError(t, err)
				return m
			},
			calls: []call{{want: 200}, {want: 200}},
		},
		perIP(),
		{
			name: "dry run",
			build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
				return single(t, clk, core.GCRA{Rate: core.PerHour(1)}, middleware.Options{DryRun: true})
			},
			calls: []call{{want: 200}, {want: 200, headers: map[string]string{"X-RateLimit-Remaining": ""}}},
		},
	}
}

// twoLimits is a policy of two limits: "burst", GCRA 2 per 10 s (I = 5 s,
// τ = 10 s), and "daily", FixedWindow 3 per day. t0 is 11,045 s into its
// UTC day, so the day ends 75,355 s after t0. X-RateLimit-* describe the
// limit with the fewest units remaining; the IETF fields list both.
func twoLimits() behaviour {
	pol := `"burst";q=2;w=10, "daily";q=3;w=86400`
	problem := func(violated string) string {
		return `{"type":"` + middleware.ProblemType + `","title":"Too Many Requests","status":429,` +
			`"detail":"the request exceeds the rate limit","violated-policies":["` + violated + `"]}` + "\n"
	}
	return behaviour{
		name: "two limits",
		build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
			p, err := core.NewPolicy("api",
				core.Limit{Name: "burst", Algorithm: core.GCRA{Rate: core.Per(2, 10*time.Second)}},
				core.Limit{Name: "daily", Algorithm: core.FixedWindow{Quota: 3, Window: 24 * time.Hour}})
			require.NoError(t, err)
			l, err := core.NewLimiter(p, core.WithClock(clk))
			require.NoError(t, err)
			m, err := middleware.New(l, middleware.Options{})
			require.NoError(t, err)
			return m
		},
		calls: []call{
			// burst TAT t0+5; daily 2 left.
			{want: 200, headers: hdr(2, 1, 5, pol, `"burst";r=1;t=5, "daily";r=2;t=75355`, 0)},
			// burst TAT t0+10; daily 1 left.
			{want: 200, headers: hdr(2, 0, 10, pol, `"burst";r=0;t=10, "daily";r=1;t=75355`, 0)},
			// burst denies: one unit in 5 s; daily unchanged.
			{want: 429, headers: hdr(2, 0, 5, pol, `"burst";r=0;t=5, "daily";r=1;t=75355`, 5), body: problem("burst")},
			// At t0+10 burst admits (TAT t0+15) and daily is spent: the
			// daily limit is the one X-RateLimit-* describe.
			{at: 10 * time.Second, want: 200, headers: hdr(3, 0, 75355, pol, `"burst";r=1;t=5, "daily";r=0;t=75345`, 0)},
			// At t0+20 burst is full again and daily denies until the day
			// ends.
			{at: 20 * time.Second, want: 429, headers: hdr(3, 0, 75355, pol, `"burst";r=2;t=0, "daily";r=0;t=75335`, 75335), body: problem("daily")},
		},
	}
}

type brokenLimiter struct{}

func (brokenLimiter) AllowN(context.Context, string, int64) (core.Result, error) {
	return core.Result{}, errors.New("store down")
}

func (brokenLimiter) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, errors.New("store down")
}

// routePatterns are the per-route patterns of the application in every
// router's syntax, so one Routes serves all stacks.
var routePatterns = map[string][]string{
	"hello": {"GET /hello"},
	"users": {"GET /users/{id}", "GET /users/:id"},
	"login": {"POST /login"},
}

// perIP is the one-line per-IP middleware of every stack at "2/10s" (GCRA,
// I = 5 s, burst 2), mounted on the whole router: every method of a client
// IP counts in one bucket (HEAD like GET, a HEAD a route does not serve
// included), and so does a CORS preflight that reaches a handler serving
// OPTIONS (/hello serves every method: no preflight is a second budget),
// while a preflight the router answers without a handler of its own (to
// GET-only /users/1, POST-only /login) is limited in a bucket of its own
// (the middleware's default, PreflightOwnBucket); a plain OPTIONS counts
// like any request, forwarding headers are ignored, IPv6 clients share
// their /64.
func perIP() behaviour {
	pol := `"per-ip";q=2;w=10`
	preflight := map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"}
	preflightPost := map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
	return behaviour{
		name:  "PerIP one-liner",
		perIP: "2/10s",
		calls: []call{
			{want: 200, headers: hdr(2, 1, 5, pol, `"per-ip";r=1;t=5`, 0)},
			{method: "HEAD", want: 200, headers: hdr(2, 0, 10, pol, `"per-ip";r=0;t=10`, 0)},
			// HEAD of a GET-only route: denied before the router would
			// answer 404 or 405.
			{method: "HEAD", path: "/users/1", want: 429, headers: map[string]string{"Retry-After": "5", "Content-Type": "application/problem+json"}},
			{method: "POST", path: "/login", want: 429},
			// A preflight reaching /hello's handler, which serves every
			// method, is the OPTIONS request it is: in the spent bucket.
			{method: "OPTIONS", request: preflight, want: 429, headers: map[string]string{"Retry-After": "5", "Content-Type": "application/problem+json"}},
			// Preflights the router answers without a handler of their
			// own method: limited as strictly, in one bucket of their own
			// (the router's answer, 404, 405 or echo's 204, is not
			// compared: the bucket is).
			{method: "OPTIONS", path: "/users/1", request: preflight, routed: true, headers: map[string]string{"X-RateLimit-Remaining": "1"}},
			{method: "OPTIONS", path: "/login", request: preflightPost, routed: true, headers: map[string]string{"X-RateLimit-Remaining": "0"}},
			{method: "OPTIONS", path: "/users/1", request: preflight, want: 429},
			// A plain OPTIONS is a request like any other.
			{method: "OPTIONS", want: 429},
			// A forged X-Forwarded-For does not make another client.
			{request: map[string]string{"X-Forwarded-For": "198.51.100.9"}, want: 429},
			{remote: "198.51.100.9:1", want: 200},
			{remote: "[2001:db8::1]:1", want: 200},
			{remote: "[2001:db8::2]:1", method: "HEAD", want: 200, headers: map[string]string{"X-RateLimit-Remaining": "0"}},
			{remote: "[2001:db8::3]:1", want: 429},
			// One unit back every 5 s.
			{at: 5 * time.Second, method: "POST", path: "/login", want: 200, headers: map[string]string{"X-RateLimit-Remaining": "0"}},
			{at: 5 * time.Second, want: 429, headers: map[string]string{"Retry-After": "5"}},
		},
	}
}
