package headers_test

import (
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// two returns the Results of one request passing two limiters, as two
// middlewares decide it: "outer" (10 at once, its last unit taken) and
// "in, ner" (a name with a comma and a quote: 1000 a day), which admits
// or, when full, denies.
func two(t *testing.T, innerDenies bool) (outer, inner core.Result) {
	clk := coretest.NewClock(t0)
	o := newLimiter(t, clk, core.Limit{Name: "outer", Algorithm: core.GCRA{Rate: core.PerMinute(100), Burst: 10}})
	in := newLimiter(t, clk, core.Limit{Name: `in, "ner`, Algorithm: core.GCRA{Rate: core.PerDay(1000), Burst: 2}})
	outer = takeN(t, o, 10)
	if innerDenies {
		take(t, in, 2)
	}
	return outer, take(t, in, 1)
}

// Combine writes what both decisions say, in every draft: the lists hold
// both limits, the binding limit's fields are the stricter's (the outer
// limit's, none left), and a denial's Retry-After is the longer wait: the
// inner limit's 87 s, not the 6 s until the outer one is whole again.
func TestCombine(t *testing.T) {
	t.Parallel()
	for _, d := range []headers.Draft{headers.DraftIETF11, headers.DraftIETF7, headers.DraftIETF6} {
		w := newWriter(t, headers.Options{Draft: d})
		outer, inner := two(t, false)
		h := http.Header{"Other": {"x"}}
		w.Combine(h, &outer)
		w.Combine(h, &inner)
		checkValid(t, without(h, "Other"), d)
		assert.Equal(t, "0", h.Get("X-RateLimit-Remaining"), d, "the outer limit's: none left")
		assert.Equal(t, "10", h.Get("X-RateLimit-Limit"), d)
		assert.Equal(t, strconv.Itoa(t0s+6), h.Get("X-RateLimit-Reset"), d)
		assert.Empty(t, h.Get("Retry-After"), d)
		switch d {
		case headers.DraftIETF11:
			assert.Equal(t, `"outer";q=10;w=6, "in, \"ner";q=2;w=173`, h.Get("RateLimit-Policy"))
			assert.Equal(t, `"outer";r=0;t=6, "in, \"ner";r=1;t=87`, h.Get("RateLimit"))
		case headers.DraftIETF7:
			assert.Equal(t, `10;w=6, 2;w=173`, h.Get("RateLimit-Policy"))
			assert.Equal(t, `limit=10, remaining=0, reset=6`, h.Get("RateLimit"))
		case headers.DraftIETF6:
			assert.Equal(t, "0", h.Get("RateLimit-Remaining"))
			assert.Equal(t, "6", h.Get("RateLimit-Reset"))
		}

		// The inner limit denies: 87 s, longer than the outer's 6 s.
		outer, inner = two(t, true)
		h = http.Header{}
		w.Combine(h, &outer)
		w.Combine(h, &inner)
		checkValid(t, h, d)
		assert.Equal(t, "87", h.Get("Retry-After"), d)
		assert.Equal(t, strconv.Itoa(t0s+87), h.Get("X-RateLimit-Reset"), d, "when the request passes")
	}
}

// A denial after an admission that took a limit's last unit waits for
// that limit too, when it is the longer wait, read from whichever fields
// the Writer writes (the limit's name, quoted, holds what an item's
// syntax uses).
func TestCombineWaitsForTheHeldLimit(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	day := newLimiter(t, clk, core.Limit{Name: `d"a, y;r=1`, Algorithm: core.FixedWindow{Quota: 1, Window: 24 * 3600e9}})
	b := newLimiter(t, clk, burst)
	for _, d := range []headers.Draft{headers.DraftIETF11, headers.DraftIETF7, headers.DraftIETF6} {
		for _, omit := range []headers.Field{0, headers.XRateLimit} {
			w := newWriter(t, headers.Options{Draft: d, Omit: omit})
			first := take(t, day, 1)
			require.NoError(t, day.Reset(t.Context(), "user"))
			denied := takeN(t, b, 11)
			require.NoError(t, b.Reset(t.Context(), "user"))
			require.False(t, denied.Allowed)
			h := http.Header{}
			w.Combine(h, &first)
			w.Combine(h, &denied)
			want := strconv.FormatInt(86400-(t0s%86400), 10) // to the day's end
			assert.Equal(t, want, h.Get("Retry-After"), "%v omitting %v", d, omit)
		}
	}
}

// Values Combine cannot read are replaced, as Write replaces them, and
// without any of its fields in h Combine is Write.
func TestCombineReplacesWhatItCannotRead(t *testing.T) {
	w := newWriter(t, headers.Options{})
	r := take(t, newLimiter(t, coretest.NewClock(t0), burst), 1)
	h := http.Header{"X-Ratelimit-Remaining": {"-1"}, "X-Ratelimit-Limit": {"lots"}, "Retry-After": {"soon"}}
	w.Combine(h, &r)
	assert.Equal(t, "9", h.Get("X-RateLimit-Remaining"))
	assert.Equal(t, "10", h.Get("X-RateLimit-Limit"))
	assert.Equal(t, "soon", h.Get("Retry-After"), "not written when allowed, not deleted")

	plain, combined := write(w, r), http.Header{}
	w.Combine(combined, &r)
	assert.Equal(t, plain, combined)
	assert.Equal(t, testing.AllocsPerRun(20, func() { w.Write(http.Header{}, &r) }),
		testing.AllocsPerRun(20, func() { w.Combine(http.Header{}, &r) }))
}

func without(h http.Header, name string) http.Header {
	c := h.Clone()
	c.Del(name)
	return c
}

// Draft 7 forbids two RateLimit-Policy items of one quota: combined, two
// limits of 10 keep the stricter item alone, the longer window.
func TestCombineDraft7SameQuota(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	minute := newLimiter(t, clk, core.Limit{Name: "minute", Algorithm: core.FixedWindow{Quota: 10, Window: 60e9}})
	hour := newLimiter(t, clk, core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 10, Window: 3600e9}},
		core.Limit{Name: "other", Algorithm: core.FixedWindow{Quota: 5, Window: 60e9}})
	for _, d := range []headers.Draft{headers.DraftIETF7, headers.DraftIETF6} {
		w := newWriter(t, headers.Options{Draft: d})
		a, b := take(t, minute, 1), take(t, hour, 1)
		h := http.Header{}
		w.Combine(h, &a)
		w.Combine(h, &b)
		checkValid(t, h, d)
		assert.Equal(t, "10;w=3600, 5;w=60", h.Get("RateLimit-Policy"), d)
		h = http.Header{}
		w.Combine(h, &b)
		w.Combine(h, &a)
		assert.Equal(t, "10;w=3600, 5;w=60", h.Get("RateLimit-Policy"), d)
	}
}

// Wait reads the wait a Writer's fields tell of, in every draft: a limit
// with nothing remaining waits for its reset, one with some left for
// nothing, and Retry-After is read as it is.
func TestWait(t *testing.T) {
	t.Parallel()
	for _, d := range []headers.Draft{headers.DraftIETF11, headers.DraftIETF7, headers.DraftIETF6} {
		w := newWriter(t, headers.Options{Draft: d})
		l := newLimiter(t, coretest.NewClock(t0), core.Limit{Name: `a "b", c`, Algorithm: core.FixedWindow{Quota: 2, Window: 60e9}})
		r := take(t, l, 1)
		assert.Zero(t, headers.Wait(write(w, r)), "%v: one left", d)
		r = take(t, l, 1)
		assert.Equal(t, int64(55), headers.Wait(write(w, r)), "%v: none left until the window's end", d)
	}
	assert.Equal(t, int64(7), headers.Wait(http.Header{"Retry-After": {"7"}}))
	assert.Zero(t, headers.Wait(http.Header{"Retry-After": {"Fri, 31 Dec 1999 23:59:59 GMT"}, "Ratelimit": {"garbage"}}))
	assert.Zero(t, headers.Wait(nil))
}

// HeldWait reads a wait from any draft's fields under the default names
// and the Writer's own, and the instant X-RateLimit-Reset only from an at
// a core.Limiter could have decided at.
func TestHeldWait(t *testing.T) {
	t.Parallel()
	w := newWriter(t, headers.Options{Omit: headers.IETF, Names: map[headers.Field]string{headers.XRateLimitRemaining: "X-Left"}})
	h := http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"30"}, "Ratelimit": {`"a";r=0;t=40`}}
	assert.Equal(t, int64(40), w.HeldWait(h, t0))
	h = http.Header{"X-Left": {"0"}, "X-Ratelimit-Reset": {strconv.Itoa(t0s + 50)}}
	assert.Equal(t, int64(50), w.HeldWait(h, t0))
	assert.Zero(t, w.HeldWait(h, time.Unix(0, 0)), "no instant to read it from")
	assert.Zero(t, w.HeldWait(h, time.Time{}))
	h = http.Header{"Retry-After": {"999999999999999"}}
	assert.Equal(t, int64(math.MaxInt64/time.Second), (*headers.Writer)(nil).HeldWait(h, t0), "no longer than a Duration")
}

// A held Retry-After in HTTP-date form, as RFC 9110 allows and another
// component may write it, was read as no wait: a denial combined with it
// said its own 1 s, and Wait said 0. It is read from at (Wait: the system
// clock), rounded up.
func TestAttackHeldRetryAfterDate(t *testing.T) {
	t.Parallel()
	denied := takeN(t, newLimiter(t, coretest.NewClock(t0), burst), 11)
	require.False(t, denied.Allowed)
	h := http.Header{"Retry-After": {t0.Add(90 * time.Second).Format(http.TimeFormat)}}
	newWriter(t, headers.Options{}).Combine(h, &denied)
	assert.Equal(t, "90", h.Get("Retry-After"))
	h = http.Header{"Retry-After": {time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}
	assert.InDelta(t, 3600, headers.Wait(h), 10)
}
