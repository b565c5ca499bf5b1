package floodgate_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/sftest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// t0 is Unix second 1767323045: 5 s into an epoch-aligned 10 s window.
var t0 = time.Unix(1767323045, 0).UTC()

const t0s = 1767323045

// call is one request of a behaviour case and what its answer must be.
type call struct {
	at      time.Duration // since t0, on the limiter's fake clock
	method  string        // GET when empty
	path    string        // /hello when empty
	remote  string        // 192.0.2.1:1234 when empty
	status  int           // of the handler (200 when 0): what it answers if reached
	want    int           // the status the client must see
	headers map[string]string
	body    string // the exact body, when not empty
}

// behaviour is a case of the table every stack runs.
type behaviour struct {
	name  string
	build func(t *testing.T, clk core.Clock) *middleware.Middleware
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
// answer with exactly these headers (derived by hand: see each case).
func twoPerTen(name string, a core.Algorithm, reset1, reset2, retry3, reset3 int64) behaviour {
	pol := `"api";q=2;w=10`
	return behaviour{
		name: name,
		build: func(t *testing.T, clk core.Clock) *middleware.Middleware {
			return single(t, clk, a, middleware.Options{})
		},
		calls: []call{
			{want: 200, headers: hdr(2, 1, reset1, pol, `"api";r=1;t=`+strconv.FormatInt(reset1, 10), 0)},
			{want: 200, headers: hdr(2, 0, reset2, pol, `"api";r=0;t=`+strconv.FormatInt(reset2, 10), 0)},
			{want: 429, headers: hdr(2, 0, reset3, pol, `"api";r=0;t=`+strconv.FormatInt(retry3, 10), retry3)},
		},
	}
}

func behaviours() []behaviour {
	ten := 10 * time.Second
	return []behaviour{
		// GCRA: I = 5 s, τ = 10 s. Call 1: TAT t0+5; call 2: t0+10; call 3
		// would need TAT t0+15: denied, 5 s to wait.
		twoPerTen("GCRA", core.GCRA{Rate: core.Per(2, ten)}, 5, 10, 5, 10),
		// TokenBucket: 0.2 token/s; the same instants as GCRA.
		twoPerTen("TokenBucket", core.TokenBucket{Rate: core.Per(2, ten)}, 5, 10, 5, 10),
		// LeakyBucket, meter form: GCRA's numbers, no delay.
		twoPerTen("LeakyBucket", core.LeakyBucket{Rate: core.Per(2, ten), Capacity: 2, NoDelay: 2}, 5, 10, 5, 10),
		// FixedWindow: t0 is 5 s into [t0−5, t0+5): everything resets in 5 s.
		twoPerTen("FixedWindow", core.FixedWindow{Limit: 2, Window: ten}, 5, 5, 5, 5),
		// SlidingLog: both entries at t0 leave the trailing window at t0+10.
		twoPerTen("SlidingLog", core.SlidingLog{Limit: 2, Window: ten}, 10, 10, 10, 10),
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
				return single(t, clk, core.FixedWindow{Limit: 5, Window: 10 * time.Second}, middleware.Options{
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
					l, err := core.NewLimiter(core.MustPolicy("r", core.Limit{Name: "r", Algorithm: core.FixedWindow{Limit: n, Window: time.Hour}}), core.WithClock(clk))
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
				core.Limit{Name: "daily", Algorithm: core.FixedWindow{Limit: 3, Window: 24 * time.Hour}})
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
			{want: 429, headers: hdr(2, 0, 10, pol, `"burst";r=0;t=5, "daily";r=1;t=75355`, 5), body: problem("burst")},
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

// answer is what a client observes.
type answer struct {
	Status  int
	Headers map[string]string
	Body    string
}

// TestBehaviourTable runs every behaviour through every stack: each must
// see exactly the expected answers, and all stacks identical answers.
func TestBehaviourTable(t *testing.T) {
	for _, b := range behaviours() {
		t.Run(b.name, func(t *testing.T) {
			var first []answer
			for _, s := range stacks {
				got := runBehaviour(t, s, b)
				if first == nil {
					first = got
					continue
				}
				assert.Equal(t, first, got, "%s differs from %s", s.name, stacks[0].name)
			}
		})
	}
}

var observed = []string{
	"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit",
	"Retry-After", "Content-Type",
}

func runBehaviour(t *testing.T, s stack, b behaviour) []answer {
	clk := coretest.NewClock(t0)
	var status int
	h := s.serve(t, b.build(t, clk), func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte("ok"))
	})
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
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		msg := s.name + " call " + strconv.Itoa(i)
		require.Equal(t, c.want, w.Code, msg)
		a := answer{Status: w.Code, Headers: map[string]string{}, Body: w.Body.String()}
		for _, k := range observed {
			a.Headers[k] = w.Header().Get(k)
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

// Retry-After is the true wait rounded up, for every algorithm: the
// header of each 429 against the exact wait a Peek reports at that instant
// (core's tests prove that wait exact: a retry then passes, 1 ms earlier
// fails).
func TestRetryAfterIsCeilOfTrueWait(t *testing.T) {
	algs := []core.Algorithm{
		core.GCRA{Rate: core.Per(3, 7*time.Second)},
		core.TokenBucket{Rate: core.Per(3, 7*time.Second)},
		core.LeakyBucket{Rate: core.Per(3, 7*time.Second), Capacity: 3, NoDelay: 3},
		core.FixedWindow{Limit: 3, Window: 7 * time.Second},
		core.SlidingLog{Limit: 3, Window: 7 * time.Second},
		core.SlidingWindow{Limit: 3, Window: 7 * time.Second},
		core.Hybrid{Quota: 3, Window: 7 * time.Second},
		core.RollingWindow{Quota: 3, Window: 7 * time.Second, Period: time.Second},
		core.WarmUp{Rate: core.Per(3, 7*time.Second), WarmUp: 7 * time.Second},
	}
	ctx := context.Background()
	for _, a := range algs {
		clk := coretest.NewClock(t0)
		l, err := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "api", Algorithm: a}), core.WithClock(clk))
		require.NoError(t, err)
		m, err := middleware.New(l, middleware.Options{})
		require.NoError(t, err)
		h := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		denials := 0
		for i := 0; i < 60; i++ {
			clk.Set(t0.Add(time.Duration(i) * 237 * time.Millisecond))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			if w.Code != http.StatusTooManyRequests {
				continue
			}
			denials++
			ra, err := strconv.ParseInt(w.Header().Get("Retry-After"), 10, 64)
			require.NoError(t, err)
			res, err := l.Peek(ctx, "192.0.2.1/32", 1)
			require.NoError(t, err)
			require.False(t, res.Allowed)
			want := int64((res.RetryAfter + time.Second - 1) / time.Second)
			assert.Equal(t, max(want, 1), ra, "%T at step %d: true wait %v", a, i, res.RetryAfter)
		}
		assert.Positive(t, denials, "%T was never denied", a)
	}
}
