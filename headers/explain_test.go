package headers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

// The tests of this file back every table of docs/headers.md: each
// scenario is played through the real middleware on an injected clock, its
// responses are rendered as the document's rows, and the document must hold
// them verbatim. Run with -v to see a table that differs.

// day is midnight UTC, the start of a minute, an hour and a day of the
// Unix epoch: the windows aligned to the epoch start there.
var day = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)

// scenario is one algorithm's configuration and what a client does: n
// requests of cost 1 at day+at, then one more at the same instant.
type scenario struct {
	title  string // the document's heading for it
	config string // the configuration as a Go expression
	alg    core.Algorithm
	at     time.Duration
	n      int
	// held is how long the middleware holds the n-th request before the
	// handler runs: LeakyBucket's shaping delay.
	held time.Duration
	// hiddenReset is set where a single request cannot tell the key from a
	// key never seen before X-RateLimit-Reset: RollingWindow with a period
	// cap, whose remaining is back to the cap before the window has let go
	// of every unit.
	hiddenReset bool
}

// scenarios are the document's tables, one per algorithm (two shapes of
// LeakyBucket and of RollingWindow, and GCRA with its default burst).
var scenarios = []scenario{
	{
		title: "GCRA", config: "core.GCRA{Rate: core.PerMinute(100), Burst: 20}",
		alg: core.GCRA{Rate: core.PerMinute(100), Burst: 20}, at: 6 * time.Second, n: 20,
	},
	{
		title: "GCRA, default burst", config: "core.GCRA{Rate: core.PerMinute(100)}",
		alg: core.GCRA{Rate: core.PerMinute(100)}, at: 6 * time.Second, n: 100,
	},
	{
		title: "TokenBucket", config: "core.TokenBucket{Rate: core.PerMinute(100), Burst: 20}",
		alg: core.TokenBucket{Rate: core.PerMinute(100), Burst: 20}, at: 6 * time.Second, n: 20,
	},
	{
		title: "LeakyBucket, meter", config: "core.LeakyBucket{Rate: core.PerMinute(100), Capacity: 20, NoDelay: 20}",
		alg: core.LeakyBucket{Rate: core.PerMinute(100), Capacity: 20, NoDelay: 20}, at: 6 * time.Second, n: 20,
	},
	{
		title: "LeakyBucket, shaping", config: "core.LeakyBucket{Rate: core.PerMinute(100), Capacity: 20}",
		alg: core.LeakyBucket{Rate: core.PerMinute(100), Capacity: 20}, at: 6 * time.Second, n: 20,
		held: 11400 * time.Millisecond, // 19 slots of 600 ms
	},
	{
		title: "FixedWindow", config: "core.FixedWindow{Quota: 60, Window: time.Minute}",
		alg: core.FixedWindow{Quota: 60, Window: time.Minute}, at: 6 * time.Second, n: 60,
	},
	{
		title: "SlidingLog", config: "core.SlidingLog{Quota: 60, Window: time.Minute}",
		alg: core.SlidingLog{Quota: 60, Window: time.Minute}, at: 6 * time.Second, n: 60,
	},
	{
		title: "SlidingWindow", config: "core.SlidingWindow{Quota: 60, Window: time.Minute}",
		alg: core.SlidingWindow{Quota: 60, Window: time.Minute}, at: 6 * time.Second, n: 60,
	},
	{
		title: "Hybrid", config: "core.Hybrid{Quota: 60, Window: time.Minute}",
		alg: core.Hybrid{Quota: 60, Window: time.Minute}, at: 6 * time.Second, n: 60,
	},
	{
		title:  "RollingWindow",
		config: "core.RollingWindow{Quota: 60, Window: time.Minute, Period: 10 * time.Second}",
		alg:    core.RollingWindow{Quota: 60, Window: time.Minute, Period: 10 * time.Second}, at: 6 * time.Second, n: 60,
	},
	{
		title:  "RollingWindow, period cap",
		config: "core.RollingWindow{Quota: 60, Window: time.Minute, Period: 10 * time.Second, PeriodCap: 20}",
		alg:    core.RollingWindow{Quota: 60, Window: time.Minute, Period: 10 * time.Second, PeriodCap: 20}, at: 6 * time.Second, n: 20,
		hiddenReset: true,
	},
	{
		title:  "WarmUp",
		config: "core.WarmUp{Rate: core.PerMinute(60), WarmUp: 30 * time.Second}",
		alg:    core.WarmUp{Rate: core.PerMinute(60), WarmUp: 30 * time.Second}, at: 6 * time.Second, n: 1,
	},
	{
		title:  "Backoff",
		config: "core.Backoff{Free: 5, Window: time.Hour, Base: time.Second}",
		alg:    core.Backoff{Free: 5, Window: time.Hour, Base: time.Second}, at: 6 * time.Second, n: 6,
	},
}

// clientKey is the key of every request a client sends.
const clientKey = "client"

// client plays requests through the middleware, on the limiter's clock.
type client struct {
	t   *testing.T
	clk *coretest.Clock
	lim *core.Limiter
	h   http.Handler
	// denied is the Result of the latest denial.
	denied core.Result
}

func newClient(t *testing.T, a core.Algorithm) *client {
	t.Helper()
	p, err := core.Single("api", a)
	require.NoError(t, err)
	clk := coretest.NewClock(day)
	lim, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	c := &client{t: t, clk: clk, lim: lim}
	m, err := middleware.New(lim, middleware.Options{
		Key:      func(*http.Request) (string, error) { return clientKey, nil },
		OnDenied: func(_ *http.Request, res core.Result) { c.denied = res },
	})
	require.NoError(t, err)
	c.h = m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	return c
}

// send sends one request now and returns the response.
func (c *client) send() *http.Response {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	return rec.Result()
}

// passes reports whether a request of cost 1 would pass at now+d, changing
// nothing (the clock is put back).
func (c *client) passes(d time.Duration) bool {
	now := c.clk.Now()
	defer c.clk.Set(now)
	c.clk.Set(now.Add(d))
	r, err := c.lim.Peek(context.Background(), clientKey, 1)
	require.NoError(c.t, err)
	return r.Allowed
}

// horizon bounds every wait of the scenarios (Backoff forgives in 24 h).
const horizon = 48 * time.Hour

// nextPass returns the least wait from now after which a request of cost
// 1 passes: by bisection, every limit's verdict being false, then true, as
// time passes with nothing taken.
func (c *client) nextPass() time.Duration {
	if c.passes(0) {
		return 0
	}
	require.True(c.t, c.passes(horizon))
	bad, good := time.Duration(0), horizon
	for good-bad > 1 { // at most 48 steps
		mid := bad + (good-bad)/2
		if c.passes(mid) {
			good = mid
		} else {
			bad = mid
		}
	}
	return good
}

// asFresh reports whether the key decides at now+d as a key never seen.
func (c *client) asFresh(d time.Duration) bool {
	now := c.clk.Now()
	defer c.clk.Set(now)
	c.clk.Set(now.Add(d))
	ctx := context.Background()
	r, err := c.lim.Peek(ctx, clientKey, 1)
	require.NoError(c.t, err)
	f, err := c.lim.Peek(ctx, "fresh", 1)
	require.NoError(c.t, err)
	return r.Allowed == f.Allowed && r.Remaining == f.Remaining &&
		r.ResetAfter == f.ResetAfter && r.RetryAfter == f.RetryAfter
}

// row checks what the fields of resp promise, and returns its row of the
// table.
func (c *client) row(what string, resp *http.Response, hiddenReset bool) string {
	t := c.t
	h := resp.Header
	now := c.clk.Now()
	next := c.nextPass()

	reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	require.NoError(t, err)
	inReset := time.Unix(reset, 0).Sub(now)
	if resp.StatusCode == http.StatusOK {
		// X-RateLimit-Reset: the whole quota is back at that second, and
		// not a second earlier unless it is back now.
		require.True(t, c.asFresh(inReset), "%s: not fresh at X-RateLimit-Reset", what)
		if inReset > 0 && !hiddenReset {
			require.False(t, c.asFresh(inReset-time.Second), "%s: fresh a second before X-RateLimit-Reset", what)
		}
	} else {
		// On a denial, the second the request passes: Retry-After from now.
		require.Equal(t, h.Get("Retry-After"), strconv.FormatInt(int64(inReset/time.Second), 10), what)
	}

	remaining, err := strconv.ParseInt(h.Get("X-RateLimit-Remaining"), 10, 64)
	require.NoError(t, err)
	retry := h.Get("Retry-After")
	if resp.StatusCode == http.StatusOK {
		require.Empty(t, retry)
		if remaining > 0 {
			// Remaining units pass at once.
			r, err := c.lim.Peek(context.Background(), clientKey, remaining)
			require.NoError(t, err)
			require.True(t, r.Allowed, "%s: X-RateLimit-Remaining %d do not pass", what, remaining)
		}
		retry = "—"
	} else {
		// Retry-After is the exact wait (the decision's RetryAfter: a
		// nanosecond earlier the request is refused) rounded up: the
		// retry passes at Retry-After, not a second before.
		require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		require.Equal(t, next, c.denied.RetryAfter, "%s: RetryAfter is not the exact wait", what)
		ra, err := strconv.ParseInt(retry, 10, 64)
		require.NoError(t, err)
		require.Equal(t, max((next+time.Second-1)/time.Second, 1), time.Duration(ra), "%s: Retry-After", what)
		require.True(t, c.passes(time.Duration(ra)*time.Second), what)
		require.False(t, c.passes(time.Duration(ra-1)*time.Second), what)
		require.Zero(t, remaining)
	}
	// The IETF item of the (only, so binding) limit says the same.
	require.Equal(t, fmt.Sprintf(`"api";r=%d;t=%d`, remaining, reset-now.Unix()), h.Get("RateLimit"), what)
	return fmt.Sprintf("| %s | %d | %s | %s | now + %d | %s | `%s` | `%s` | %s |",
		what, resp.StatusCode, h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"),
		reset-now.Unix(), retry, h.Get("RateLimit-Policy"), h.Get("RateLimit"), waitText(next))
}

// waitText writes a wait for the document: "now", or seconds.
func waitText(d time.Duration) string {
	if d == 0 {
		return "now"
	}
	return "after " + strings.TrimSuffix(strconv.FormatFloat(d.Seconds(), 'f', 3, 64), ".000") + " s"
}

const tableHead = "| request | status | X-RateLimit-Limit | -Remaining | -Reset | Retry-After | RateLimit-Policy | RateLimit | the next request passes |\n" +
	"|---|---|---|---|---|---|---|---|---|\n"

// play plays s and returns its table.
func (s *scenario) play(t *testing.T) string {
	c := newClient(t, s.alg)
	c.clk.Set(day.Add(s.at))
	clock := day.Add(s.at).Format("15:04:05")
	var b strings.Builder
	b.WriteString(tableHead)
	for i := 1; i <= s.n+1; i++ {
		start := time.Now() // the bubble's clock: it moves only while the middleware waits
		resp := c.send()
		if i == s.n {
			require.Equal(t, s.held, time.Since(start), "the %s request held", ordinal(i))
		}
		switch i {
		case 1, s.n, s.n + 1:
			fmt.Fprintf(&b, "%s\n", c.row(fmt.Sprintf("%s at %s", ordinal(i), clock), resp, s.hiddenReset))
		}
		if i <= s.n {
			require.Equal(t, http.StatusOK, resp.StatusCode, "request %d", i)
		}
	}
	// The refused request, retried at Retry-After, passes through the
	// middleware.
	last := c.send()
	require.Equal(t, http.StatusTooManyRequests, last.StatusCode)
	ra, err := strconv.Atoi(last.Header.Get("Retry-After"))
	require.NoError(t, err)
	c.clk.Advance(time.Duration(ra) * time.Second)
	require.Equal(t, http.StatusOK, c.send().StatusCode)
	return b.String()
}

func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}

func ordinal(i int) string {
	switch {
	case i%100/10 != 1 && i%10 == 1:
		return fmt.Sprintf("%dst", i)
	case i%100/10 != 1 && i%10 == 2:
		return fmt.Sprintf("%dnd", i)
	case i%100/10 != 1 && i%10 == 3:
		return fmt.Sprintf("%drd", i)
	}
	return fmt.Sprintf("%dth", i)
}

// readDoc returns docs/headers.md.
func readDoc(t *testing.T) string {
	b, err := os.ReadFile("../docs/headers.md")
	require.NoError(t, err)
	return string(b)
}

// TestHeadersDocTables plays every scenario of docs/headers.md through the
// middleware and checks that the document shows its responses as they are.
func TestHeadersDocTables(t *testing.T) {
	doc := readDoc(t)
	for _, s := range scenarios {
		t.Run(s.title, func(t *testing.T) {
			// A bubble, so that LeakyBucket's shaping delays pass at once.
			synctest.Test(t, func(t *testing.T) {
				table := s.play(t)
				block := fmt.Sprintf("`%s`, %s at %s:\n\n%s", s.config, requests(s.n),
					day.Add(s.at).Format("15:04:05"), table)
				if !strings.Contains(doc, block) {
					t.Errorf("docs/headers.md does not hold the table of %s as played:\n\n%s", s.title, block)
				}
			})
		})
	}
}

// pace sends, from day+s.at, rounds of q requests of cost 1 at once every
// w (bursts), or one request every w/q (even, rounded up to a
// nanosecond), for three windows, and returns how many were refused of
// how many sent.
func (s *scenario) pace(t *testing.T, q, w int64, bursts bool) (refused, sent int) {
	p, err := core.Single("api", s.alg)
	require.NoError(t, err)
	clk := coretest.NewClock(day.Add(s.at))
	lim, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	win := time.Duration(w) * time.Second
	for round := range 3 {
		for i := range q {
			if bursts {
				clk.Set(day.Add(s.at + time.Duration(round)*win))
			} else {
				n := int64(round)*q + i
				clk.Set(day.Add(s.at + time.Duration((n*int64(win)+q-1)/q)))
			}
			r, err := lim.Allow(context.Background(), clientKey)
			require.NoError(t, err)
			sent++
			if !r.Allowed {
				refused++
			}
		}
	}
	return refused, sent
}

func paceText(refused, sent int) string {
	if refused == 0 {
		return fmt.Sprintf("all %d pass", sent)
	}
	return fmt.Sprintf("%d of %d refused", refused, sent)
}

// TestHeadersDocPacing checks the document's table of what a client that
// reads RateLimit-Policy as "q per w" gets: q at once every w seconds, or
// q evenly spread over every w seconds, for three windows.
func TestHeadersDocPacing(t *testing.T) {
	var b strings.Builder
	b.WriteString("| configuration | RateLimit-Policy | q at once, every w s | one every w/q s |\n|---|---|---|---|\n")
	for _, s := range scenarios {
		// q and w as a client reads them.
		var q, w int64
		pol := newClient(t, s.alg).send().Header.Get("RateLimit-Policy")
		_, err := fmt.Sscanf(pol, `"api";q=%d;w=%d`, &q, &w)
		require.NoError(t, err, pol)
		fmt.Fprintf(&b, "| %s | `q=%d;w=%d` | %s | %s |\n", s.title, q, w,
			paceText(s.pace(t, q, w, true)), paceText(s.pace(t, q, w, false)))
	}
	if !strings.Contains(readDoc(t), b.String()) {
		t.Errorf("docs/headers.md does not hold the pacing table as played:\n\n%s", b.String())
	}
}
