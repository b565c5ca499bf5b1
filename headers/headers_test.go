package headers_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/internal/race"
	"github.com/floodgate-go/floodgate/internal/sftest"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// t0 is a whole second: 1767323045 in Unix seconds.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const t0s = 1767323045

// burst is 10 at once, refilled at 100 a minute: GCRA's emission interval
// is 600 ms, so the whole burst takes 6 s to come back (w=6).
var burst = core.Limit{Name: "burst", Algorithm: core.GCRA{Rate: core.PerMinute(100), Burst: 10}}

// daily is 1000 a day with a burst of 1000: an 86.4 s emission interval and
// a window of 86400 s.
var daily = core.Limit{Name: "daily", Algorithm: core.GCRA{Rate: core.PerDay(1000)}}

func newLimiter(t testing.TB, clk core.Clock, limits ...core.Limit) *core.Limiter {
	t.Helper()
	p, err := core.NewPolicy("test", limits...)
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	return l
}

func take(t testing.TB, l *core.Limiter, cost int64) core.Result {
	t.Helper()
	r, err := l.AllowN(context.Background(), "user", cost)
	require.NoError(t, err)
	return r
}

// takeN takes n requests of cost 1 and returns the last result.
func takeN(t testing.TB, l *core.Limiter, n int) core.Result {
	t.Helper()
	var r core.Result
	for range n {
		r = take(t, l, 1)
	}
	return r
}

func newWriter(t testing.TB, opts headers.Options) *headers.Writer {
	t.Helper()
	w, err := headers.New(opts)
	require.NoError(t, err)
	return w
}

// hdr builds the expected header from name, value pairs.
func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func write(w *headers.Writer, r core.Result) http.Header {
	h := http.Header{}
	w.Write(h, &r)
	return h
}

// checkValid checks every field of h against its grammar for draft d.
func checkValid(t testing.TB, h http.Header, d headers.Draft) {
	t.Helper()
	for name, vs := range h {
		require.Len(t, vs, 1, name)
		v := vs[0]
		var err error
		switch name {
		case "Retry-After", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset",
			"Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset":
			_, err = sftest.CheckInt(v)
		case "Ratelimit-Policy":
			if d == headers.DraftIETF11 {
				_, err = sftest.CheckPolicy11(v)
			} else {
				_, err = sftest.CheckPolicy67(v)
			}
		case "Ratelimit":
			if d == headers.DraftIETF11 {
				_, err = sftest.CheckRateLimit11(v)
			} else {
				_, err = sftest.CheckRateLimit7(v)
			}
		default:
			t.Fatalf("unexpected field %s: %q", name, v)
		}
		require.NoError(t, err, "%s: %q", name, v)
	}
}

func TestWriteDraft11(t *testing.T) {
	policy := `"burst";q=10;w=6, "daily";q=1000;w=86400`
	cases := []struct {
		name string
		run  func(t *testing.T, clk *coretest.Clock, l *core.Limiter) core.Result
		want http.Header
	}{{
		name: "first request",
		run: func(t *testing.T, _ *coretest.Clock, l *core.Limiter) core.Result {
			return take(t, l, 1)
		},
		want: hdr(
			"X-RateLimit-Limit", "10",
			"X-RateLimit-Remaining", "9",
			"X-RateLimit-Reset", strconv.Itoa(t0s+1), // 600 ms, rounded up
			"RateLimit-Policy", policy,
			"RateLimit", `"burst";r=9;t=1, "daily";r=999;t=87`,
		),
	}, {
		name: "burst spent",
		run: func(t *testing.T, _ *coretest.Clock, l *core.Limiter) core.Result {
			return takeN(t, l, 10)
		},
		want: hdr(
			"X-RateLimit-Limit", "10",
			"X-RateLimit-Remaining", "0",
			"X-RateLimit-Reset", strconv.Itoa(t0s+6),
			"RateLimit-Policy", policy,
			"RateLimit", `"burst";r=0;t=6, "daily";r=990;t=864`,
		),
	}, {
		// The 11th request waits 600 ms for burst. daily admitted it and
		// reports what it would hold had it been taken.
		name: "denied",
		run: func(t *testing.T, _ *coretest.Clock, l *core.Limiter) core.Result {
			return takeN(t, l, 11)
		},
		// X-RateLimit-Reset says when it passes, as Retry-After does.
		want: hdr(
			"Retry-After", "1",
			"X-RateLimit-Limit", "10",
			"X-RateLimit-Remaining", "0",
			"X-RateLimit-Reset", strconv.Itoa(t0s+1),
			"RateLimit-Policy", policy,
			"RateLimit", `"burst";r=0;t=1, "daily";r=990;t=864`,
		),
	}, {
		name: "half a burst later",
		run: func(t *testing.T, clk *coretest.Clock, l *core.Limiter) core.Result {
			takeN(t, l, 10)
			clk.Advance(3 * time.Second)
			return take(t, l, 1)
		},
		// 5 came back in 3 s, one is taken: 4 left; the bucket is full
		// again 3.6 s later, at t0+6.6 s.
		want: hdr(
			"X-RateLimit-Limit", "10",
			"X-RateLimit-Remaining", "4",
			"X-RateLimit-Reset", strconv.Itoa(t0s+7),
			"RateLimit-Policy", policy,
			"RateLimit", `"burst";r=4;t=4, "daily";r=989;t=948`,
		),
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			l := newLimiter(t, clk, burst, daily)
			r := c.run(t, clk, l)
			h := write(newWriter(t, headers.Options{}), r)
			assert.Equal(t, c.want, h)
			checkValid(t, h, headers.DraftIETF11)
		})
	}
}

func TestRetryAfterRounding(t *testing.T) {
	cases := []struct {
		name  string
		alg   core.GCRA
		first int           // requests taken at t0
		wait  time.Duration // then the clock moves on by
		retry time.Duration // the exact RetryAfter of the next request
		want  string
	}{
		{"100ms", core.GCRA{Rate: core.PerMinute(100), Burst: 10}, 10, 500 * time.Millisecond, 100 * time.Millisecond, "1"},
		{"1ns", core.GCRA{Rate: core.PerMinute(100), Burst: 10}, 10, 600*time.Millisecond - 1, 1, "1"},
		{"exactly 1s", core.GCRA{Rate: core.PerSecond(1), Burst: 1}, 1, 0, time.Second, "1"},
		{"exactly 2s", core.GCRA{Rate: core.Per(1, 2*time.Second), Burst: 1}, 1, 0, 2 * time.Second, "2"},
		{"2.001s", core.GCRA{Rate: core.Per(1, 2001*time.Millisecond), Burst: 1}, 1, 0, 2001 * time.Millisecond, "3"},
		{"1s and 1ns", core.GCRA{Rate: core.Per(1, 2*time.Second), Burst: 1}, 1, time.Second - 1, time.Second + 1, "2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			l := newLimiter(t, clk, core.Limit{Name: "x", Algorithm: c.alg})
			takeN(t, l, c.first)
			clk.Advance(c.wait)
			r := take(t, l, 1)
			require.False(t, r.Allowed)
			require.Equal(t, c.retry, r.RetryAfter)
			for _, d := range []headers.Draft{headers.DraftIETF11, headers.DraftIETF7, headers.DraftIETF6} {
				h := write(newWriter(t, headers.Options{Draft: d}), r)
				assert.Equal(t, c.want, h.Get("Retry-After"), "%v", d)
				checkValid(t, h, d)
				// The reset of the IETF fields agrees with Retry-After.
				switch d {
				case headers.DraftIETF11:
					assert.Equal(t, `"x";r=0;t=`+c.want, h.Get("RateLimit"))
				case headers.DraftIETF7:
					assert.True(t, strings.HasSuffix(h.Get("RateLimit"), "remaining=0, reset="+c.want), h.Get("RateLimit"))
				case headers.DraftIETF6:
					assert.Equal(t, c.want, h.Get("RateLimit-Reset"))
				}
			}
		})
	}
}

func TestRetryAfterOnlyOnDenial(t *testing.T) {
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, burst)
	w := newWriter(t, headers.Options{})
	for i := range 30 {
		r := take(t, l, 1)
		h := write(w, r)
		_, has := h["Retry-After"]
		assert.Equal(t, !r.Allowed, has, "request %d", i)
		clk.Advance(200 * time.Millisecond)
	}
}

// Every denial, by either limit and whatever the cost, writes remaining 0
// in every field that has one, for the binding limit.
func TestRemainingZeroOnEveryDenial(t *testing.T) {
	for _, d := range []headers.Draft{headers.DraftIETF11, headers.DraftIETF7, headers.DraftIETF6} {
		t.Run(d.String(), func(t *testing.T) {
			clk := coretest.NewClock(t0)
			small := core.Limit{Name: "small", Algorithm: core.GCRA{Rate: core.PerSecond(2), Burst: 3}}
			l := newLimiter(t, clk, small, core.Limit{Name: "big", Algorithm: core.GCRA{Rate: core.PerMinute(30), Burst: 20}})
			w := newWriter(t, headers.Options{Draft: d})
			denials := 0
			for i := range 200 {
				cost := int64(1 + i%4)
				r := take(t, l, cost)
				h := write(w, r)
				checkValid(t, h, d)
				clk.Advance(time.Duration(37+i%5*40) * time.Millisecond)
				if r.Allowed {
					assert.Equal(t, strconv.FormatInt(r.Remaining, 10), h.Get("X-RateLimit-Remaining"))
					continue
				}
				denials++
				assert.Equal(t, "0", h.Get("X-RateLimit-Remaining"), "request %d", i)
				switch d {
				case headers.DraftIETF11:
					items, err := sftest.CheckRateLimit11(h.Get("RateLimit"))
					require.NoError(t, err)
					for j, lr := range r.Limits() {
						if !lr.Allowed || lr.Name == r.Name {
							rem, _ := items[j].Param("r")
							assert.Equal(t, int64(0), rem, "request %d, %s", i, lr.Name)
						}
					}
				case headers.DraftIETF7:
					v, err := sftest.CheckRateLimit7(h.Get("RateLimit"))
					require.NoError(t, err)
					assert.Equal(t, int64(0), v[1])
				case headers.DraftIETF6:
					assert.Equal(t, "0", h.Get("RateLimit-Remaining"))
				}
			}
			assert.Greater(t, denials, 20)
		})
	}
}

// A request whose cost exceeds a limit's quota can never pass: no
// Retry-After is written, and the resets are the limits' ordinary ones.
func TestNever(t *testing.T) {
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, burst)
	take(t, l, 1)
	r := take(t, l, 11)
	require.False(t, r.Allowed)
	require.Equal(t, core.Never, r.RetryAfter)

	h := write(newWriter(t, headers.Options{}), r)
	assert.Equal(t, hdr(
		"X-RateLimit-Limit", "10",
		"X-RateLimit-Remaining", "0",
		"X-RateLimit-Reset", strconv.Itoa(t0s+1),
		"RateLimit-Policy", `"burst";q=10;w=6`,
		"RateLimit", `"burst";r=0;t=1`,
	), h)
	checkValid(t, h, headers.DraftIETF11)

	h = write(newWriter(t, headers.Options{Draft: headers.DraftIETF7}), r)
	assert.Equal(t, "limit=10, remaining=0, reset=1", h.Get("RateLimit"))
	assert.NotContains(t, h, "Retry-After")

	// With two limits, the one that can never pass binds.
	l2 := newLimiter(t, coretest.NewClock(t0), burst, daily)
	r = take(t, l2, 11)
	require.Equal(t, core.Never, r.RetryAfter)
	h = write(newWriter(t, headers.Options{}), r)
	assert.NotContains(t, h, "Retry-After")
	assert.Equal(t, "0", h.Get("X-RateLimit-Remaining"))
	assert.Equal(t, `"burst";r=0;t=0, "daily";r=1000;t=0`, h.Get("RateLimit"))
	checkValid(t, h, headers.DraftIETF11)
}

func TestDraft7(t *testing.T) {
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, burst, daily)
	w := newWriter(t, headers.Options{Draft: headers.DraftIETF7})
	assert.Equal(t, headers.DraftIETF7, w.Draft())

	h := write(w, take(t, l, 1))
	assert.Equal(t, hdr(
		"X-RateLimit-Limit", "10",
		"X-RateLimit-Remaining", "9",
		"X-RateLimit-Reset", strconv.Itoa(t0s+1),
		"RateLimit-Policy", "10;w=6, 1000;w=86400",
		"RateLimit", "limit=10, remaining=9, reset=1",
	), h)
	checkValid(t, h, headers.DraftIETF7)

	h = write(w, takeN(t, l, 10))
	assert.Equal(t, hdr(
		"Retry-After", "1",
		"X-RateLimit-Limit", "10",
		"X-RateLimit-Remaining", "0",
		"X-RateLimit-Reset", strconv.Itoa(t0s+1),
		"RateLimit-Policy", "10;w=6, 1000;w=86400",
		"RateLimit", "limit=10, remaining=0, reset=1",
	), h)
	checkValid(t, h, headers.DraftIETF7)
}

func TestDraft6(t *testing.T) {
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, burst, daily)
	w := newWriter(t, headers.Options{Draft: headers.DraftIETF6})

	h := write(w, take(t, l, 1))
	assert.Equal(t, hdr(
		"X-RateLimit-Limit", "10",
		"X-RateLimit-Remaining", "9",
		"X-RateLimit-Reset", strconv.Itoa(t0s+1),
		"RateLimit-Policy", "10;w=6, 1000;w=86400",
		"RateLimit-Limit", "10",
		"RateLimit-Remaining", "9",
		"RateLimit-Reset", "1",
	), h)
	checkValid(t, h, headers.DraftIETF6)

	clk.Advance(100 * time.Millisecond)
	h = write(w, takeN(t, l, 10))
	assert.Equal(t, hdr(
		"Retry-After", "1",
		"X-RateLimit-Limit", "10",
		"X-RateLimit-Remaining", "0",
		"X-RateLimit-Reset", strconv.Itoa(t0s+1), // the retry passes 600 ms after t0+100ms
		"RateLimit-Policy", "10;w=6, 1000;w=86400",
		"RateLimit-Limit", "10",
		"RateLimit-Remaining", "0",
		"RateLimit-Reset", "1",
	), h)
	checkValid(t, h, headers.DraftIETF6)
}

// Draft 7 forbids two policies with the same quota: of 10/s and 10/min only
// the stricter, 10 per 60 s, is written.
func TestDraft7SameQuota(t *testing.T) {
	l := newLimiter(t, coretest.NewClock(t0),
		core.Limit{Name: "second", Algorithm: core.GCRA{Rate: core.PerSecond(10)}},
		core.Limit{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(10)}},
		core.Limit{Name: "minute2", Algorithm: core.GCRA{Rate: core.PerMinute(10)}},
		core.Limit{Name: "hour", Algorithm: core.GCRA{Rate: core.PerHour(100)}},
	)
	r := take(t, l, 1)
	for _, d := range []headers.Draft{headers.DraftIETF7, headers.DraftIETF6} {
		h := write(newWriter(t, headers.Options{Draft: d}), r)
		assert.Equal(t, "10;w=60, 100;w=3600", h.Get("RateLimit-Policy"), "%v", d)
		checkValid(t, h, d)
	}
	h := write(newWriter(t, headers.Options{}), r)
	assert.Equal(t, `"second";q=10;w=1, "minute";q=10;w=60, "minute2";q=10;w=60, "hour";q=100;w=3600`, h.Get("RateLimit-Policy"))
}

func TestOmit(t *testing.T) {
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, burst)
	denied := takeN(t, l, 11)
	require.False(t, denied.Allowed)
	cases := []struct {
		opts headers.Options
		want []string
	}{
		{headers.Options{Omit: headers.XRateLimit}, []string{"Retry-After", "Ratelimit-Policy", "Ratelimit"}},
		{headers.Options{Omit: headers.IETF}, []string{"Retry-After", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"}},
		{headers.Options{Omit: headers.RetryAfter | headers.IETF}, []string{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"}},
		{headers.Options{Omit: headers.XRateLimitReset | headers.RateLimitPolicy}, []string{"Retry-After", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "Ratelimit"}},
		{headers.Options{Draft: headers.DraftIETF6, Omit: headers.XRateLimit | headers.RateLimitPolicy}, []string{"Retry-After", "Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset"}},
		// RateLimit is not a draft 6 field: omitting it changes nothing.
		{headers.Options{Draft: headers.DraftIETF6, Omit: headers.XRateLimit | headers.RateLimit}, []string{"Retry-After", "Ratelimit-Policy", "Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset"}},
		{headers.Options{Omit: headers.AllFields}, nil},
	}
	for _, c := range cases {
		t.Run(c.opts.Omit.String(), func(t *testing.T) {
			w := newWriter(t, c.opts)
			h := write(w, denied)
			got := make([]string, 0, len(h))
			for k := range h {
				got = append(got, k)
			}
			assert.ElementsMatch(t, c.want, got)
			assert.ElementsMatch(t, c.want, w.Names())
			checkValid(t, h, c.opts.Draft)
		})
	}
}

func TestCustomNames(t *testing.T) {
	w := newWriter(t, headers.Options{
		Names: map[headers.Field]string{
			headers.XRateLimitLimit:     "X-Rate-Limit-Limit",
			headers.XRateLimitRemaining: "x-rate-limit-remaining",
			headers.XRateLimitReset:     "", // the default
			headers.RateLimit:           "Acme-RateLimit",
			headers.RateLimitReset:      "Unused", // not a draft 11 field
		},
	})
	assert.Equal(t, []string{
		"Retry-After", "X-Rate-Limit-Limit", "X-Rate-Limit-Remaining", "X-Ratelimit-Reset",
		"Ratelimit-Policy", "Acme-Ratelimit",
	}, w.Names())
	l := newLimiter(t, coretest.NewClock(t0), burst)
	h := write(w, take(t, l, 1))
	assert.Equal(t, hdr(
		"X-Rate-Limit-Limit", "10",
		"X-Rate-Limit-Remaining", "9",
		"X-RateLimit-Reset", strconv.Itoa(t0s+1),
		"RateLimit-Policy", `"burst";q=10;w=6`,
		"Acme-RateLimit", `"burst";r=9;t=1`,
	), h)
}

func TestNamesEscaped(t *testing.T) {
	l := newLimiter(t, coretest.NewClock(t0),
		core.Limit{Name: `say "hi"`, Algorithm: core.GCRA{Rate: core.PerSecond(1)}},
		core.Limit{Name: `back\slash`, Algorithm: core.GCRA{Rate: core.PerMinute(10)}},
		core.Limit{Name: "100% café\t\x7f", Algorithm: core.GCRA{Rate: core.PerHour(100)}},
		core.Limit{Name: "a, b;c=d", Algorithm: core.GCRA{Rate: core.PerDay(1000)}},
	)
	h := write(newWriter(t, headers.Options{}), take(t, l, 1))
	assert.Equal(t, `"say \"hi\"";q=1;w=1, "back\\slash";q=10;w=60, "100%25 caf%c3%a9%09%7f";q=100;w=3600, "a, b;c=d";q=1000;w=86400`,
		h.Get("RateLimit-Policy"))
	checkValid(t, h, headers.DraftIETF11)

	pol, err := sftest.CheckPolicy11(h.Get("RateLimit-Policy"))
	require.NoError(t, err)
	rl, err := sftest.CheckRateLimit11(h.Get("RateLimit"))
	require.NoError(t, err)
	want := []string{`say "hi"`, `back\slash`, "100%25 caf%c3%a9%09%7f", "a, b;c=d"}
	require.Len(t, pol, len(want))
	require.Len(t, rl, len(want))
	for i := range want {
		assert.Equal(t, want[i], pol[i].Bare)
		assert.Equal(t, want[i], rl[i].Bare)
	}

	// An empty name is an empty sf-string.
	l = newLimiter(t, coretest.NewClock(t0), core.Limit{Name: "", Algorithm: core.GCRA{Rate: core.PerSecond(1)}})
	h = write(newWriter(t, headers.Options{}), take(t, l, 1))
	assert.Equal(t, `"";q=1;w=1`, h.Get("RateLimit-Policy"))
	assert.Equal(t, `"";r=0;t=1`, h.Get("RateLimit"))
	checkValid(t, h, headers.DraftIETF11)
}

func TestPartitionKey(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	w := newWriter(t, headers.Options{PartitionKeySecret: secret})
	l := newLimiter(t, coretest.NewClock(t0), burst, daily)
	r := take(t, l, 1)
	const key = "user-42@example.com"

	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(key))
	pk := base64.StdEncoding.EncodeToString(mac.Sum(nil)[:12])

	h := http.Header{}
	w.WriteKey(h, &r, key)
	assert.Equal(t, `"burst";q=10;w=6;pk=:`+pk+`:, "daily";q=1000;w=86400;pk=:`+pk+`:`, h.Get("RateLimit-Policy"))
	assert.Equal(t, `"burst";r=9;t=1;pk=:`+pk+`:, "daily";r=999;t=87;pk=:`+pk+`:`, h.Get("RateLimit"))
	checkValid(t, h, headers.DraftIETF11)
	for name, vs := range h {
		assert.NotContains(t, vs[0], "user-42", name)
	}
	items, err := sftest.CheckRateLimit11(h.Get("RateLimit"))
	require.NoError(t, err)
	got, _ := items[0].Param("pk")
	assert.Len(t, got, 12)

	// Write never writes pk; WriteKey without a secret is Write.
	assert.NotContains(t, write(w, r).Get("RateLimit"), "pk=")
	h = http.Header{}
	newWriter(t, headers.Options{}).WriteKey(h, &r, key)
	assert.Equal(t, write(newWriter(t, headers.Options{}), r), h)

	// Other keys, other partition keys.
	h2 := http.Header{}
	w.WriteKey(h2, &r, "user-43@example.com")
	assert.NotEqual(t, h.Get("RateLimit"), h2.Get("RateLimit"))
}

func TestNewErrors(t *testing.T) {
	cases := map[string]headers.Options{
		"unknown draft":       {Draft: headers.DraftIETF6 + 1},
		"unknown omit":        {Omit: 1 << 12},
		"group in names":      {Names: map[headers.Field]string{headers.XRateLimit: "X"}},
		"unknown in names":    {Names: map[headers.Field]string{1 << 12: "X"}},
		"space in name":       {Names: map[headers.Field]string{headers.RateLimit: "Rate Limit"}},
		"colon in name":       {Names: map[headers.Field]string{headers.RateLimit: "RateLimit:"}},
		"non-ASCII name":      {Names: map[headers.Field]string{headers.RateLimit: "Débit"}},
		"duplicate name":      {Names: map[headers.Field]string{headers.XRateLimitLimit: "ratelimit"}},
		"pk with draft 7":     {Draft: headers.DraftIETF7, PartitionKeySecret: make([]byte, 32)},
		"short pk secret":     {PartitionKeySecret: make([]byte, 15)},
		"empty pk secret set": {PartitionKeySecret: []byte{}},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := headers.New(opts)
			require.ErrorIs(t, err, core.ErrInvalidConfig)
		})
	}
	// A duplicate among fields not written is no conflict.
	_, err := headers.New(headers.Options{
		Omit:  headers.XRateLimitLimit,
		Names: map[headers.Field]string{headers.XRateLimitLimit: "RateLimit"},
	})
	require.NoError(t, err)
}

func TestWriteNothing(t *testing.T) {
	w := newWriter(t, headers.Options{})
	h := http.Header{"Keep": {"me"}}
	w.Write(h, nil)
	w.Write(h, &core.Result{})
	w.Write(nil, &core.Result{Allowed: true})
	assert.Equal(t, http.Header{"Keep": {"me"}}, h)
}

// Write replaces the values of its fields and leaves other fields alone; the
// values of different fields never share a backing array a caller could
// append into.
func TestWriteReplacesAndIsolates(t *testing.T) {
	l := newLimiter(t, coretest.NewClock(t0), burst)
	r := take(t, l, 1)
	h := http.Header{
		"X-Ratelimit-Limit": {"1", "2"},
		"Retry-After":       {"99"},
		"Other":             {"x"},
	}
	newWriter(t, headers.Options{}).Write(h, &r)
	assert.Equal(t, []string{"10"}, h["X-Ratelimit-Limit"])
	assert.Equal(t, []string{"99"}, h["Retry-After"], "not written when allowed, not deleted")
	assert.Equal(t, []string{"x"}, h["Other"])

	h.Add("X-RateLimit-Limit", "extra")
	h.Add("X-RateLimit-Remaining", "extra")
	assert.Equal(t, []string{"10", "extra"}, h["X-Ratelimit-Limit"])
	assert.Equal(t, []string{"9", "extra"}, h["X-Ratelimit-Remaining"])
	assert.Equal(t, strconv.Itoa(t0s+1), h.Get("X-RateLimit-Reset"))
}

// X-RateLimit-Reset is At + ResetAfter rounded up to a whole second.
func TestResetEpochRounding(t *testing.T) {
	cases := []struct {
		at   time.Duration // after t0
		want int64
	}{
		{0, t0s + 1},                      // t0 + 0.6 s
		{399 * time.Millisecond, t0s + 1}, // t0 + 0.999 s
		{400 * time.Millisecond, t0s + 1}, // exactly t0 + 1 s
		{401 * time.Millisecond, t0s + 2}, // t0 + 1.001 s
	}
	for _, c := range cases {
		clk := coretest.NewClock(t0.Add(c.at))
		l := newLimiter(t, clk, burst)
		h := write(newWriter(t, headers.Options{}), take(t, l, 1))
		assert.Equal(t, strconv.FormatInt(c.want, 10), h.Get("X-RateLimit-Reset"), "at %v", c.at)
	}
}

func TestWriteConcurrent(t *testing.T) {
	w := newWriter(t, headers.Options{PartitionKeySecret: []byte("0123456789abcdef")})
	l := newLimiter(t, coretest.NewClock(t0), burst, daily)
	r := take(t, l, 1)
	want := http.Header{}
	w.WriteKey(want, &r, "k")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				h := http.Header{}
				w.WriteKey(h, &r, "k")
				assert.Equal(t, want, h)
			}
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
}

// Write and WriteKey make one allocation, whatever the draft, the fields
// written and the number of limits, on admissions and denials alike.
func TestWriteAllocs(t *testing.T) {
	four := []core.Limit{burst, daily,
		{Name: "hourly", Algorithm: core.GCRA{Rate: core.PerHour(500)}},
		{Name: "weekly", Algorithm: core.GCRA{Rate: core.Per(2000, 7*24*time.Hour)}}}
	secret := []byte("0123456789abcdef")
	for _, opts := range []headers.Options{
		{}, {Draft: headers.DraftIETF7}, {Draft: headers.DraftIETF6},
		{PartitionKeySecret: secret}, {Omit: headers.XRateLimit | headers.RetryAfter},
	} {
		for _, limits := range [][]core.Limit{{burst}, {burst, daily}, four} {
			l := newLimiter(t, coretest.NewClock(t0), limits...)
			allowed := take(t, l, 1)
			denied := takeN(t, l, 10)
			never := take(t, l, 1<<40)
			require.False(t, denied.Allowed)
			if opts.PartitionKeySecret != nil && race.Enabled {
				continue // the HMAC states are pooled
			}
			w := newWriter(t, opts)
			h := http.Header{}
			for _, r := range []*core.Result{&allowed, &denied, &never} {
				w.WriteKey(h, r, "user") // add the keys first: map growth is not Write's
				n := testing.AllocsPerRun(100, func() { w.WriteKey(h, r, "user") })
				assert.Equal(t, 1.0, n, "%v, %d limits, allowed %v", opts.Draft, len(limits), r.Allowed)
			}
		}
	}
}

// A Writer keeps a bounded number of policies rendered; the policies
// beyond are rendered on every Write, with the same values.
func TestWriteManyPolicies(t *testing.T) {
	w := newWriter(t, headers.Options{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				l := newLimiter(t, coretest.NewClock(t0), core.Limit{
					Name:      "p" + strconv.Itoa(g*100+i),
					Algorithm: core.GCRA{Rate: core.PerMinute(int64(1 + i)), Burst: int64(1 + g)},
				})
				r := take(t, l, 1)
				for range 2 {
					assert.Equal(t, write(newWriter(t, headers.Options{}), r), write(w, r))
				}
			}
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
}

func TestFieldString(t *testing.T) {
	assert.Equal(t, "X-RateLimit-Limit", headers.XRateLimitLimit.String())
	assert.Equal(t, "RateLimit-Reset", headers.RateLimitReset.String())
	assert.Equal(t, "X-RateLimit-Limit|X-RateLimit-Remaining|X-RateLimit-Reset", headers.XRateLimit.String())
	assert.Equal(t, "Retry-After|Field(0x1000)", (headers.RetryAfter | 1<<12).String())
	assert.Equal(t, "Field(0)", headers.Field(0).String())
	assert.Equal(t, "draft-ietf-httpapi-ratelimit-headers-11", headers.DraftIETF11.String())
	assert.Equal(t, "Draft(9)", headers.Draft(9).String())
}

func TestWriterAccessors(t *testing.T) {
	w := newWriter(t, headers.Options{Draft: headers.DraftIETF6, Omit: headers.XRateLimit})
	assert.Equal(t, headers.RetryAfter|headers.RateLimitPolicy|headers.RateLimitLimit|headers.RateLimitRemaining|headers.RateLimitReset, w.Fields())
	assert.Equal(t, []string{"Retry-After", "Ratelimit-Policy", "Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset"}, w.Names())
}
