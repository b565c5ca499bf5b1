package middleware_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An inner denial behind an outer limit that took its last unit, the two
// middlewares writing fields of different shapes: the inner Writer read
// the held wait only from the fields it writes itself, so a draft 11
// Writer missed a draft 6 RateLimit-Remaining: 0, one omitting the IETF
// fields missed a RateLimit "global";r=0;t=59, and one omitting
// Retry-After let the middleware write its own wait. Retry-After was 9 s
// and a retry then was refused by the outer limit for 50 s more (at
// least 20 of the 64 pairs of 8 Writer configurations). Retry-After is now the longest
// wait held under any default name and the inner Writer's names, and so
// are the binding fields' resets (X-RateLimit-Reset, draft 6
// RateLimit-Reset, the draft 7 reset), which a client may obey instead.
func TestAttackStackedDenialReadsHeldFieldsOfAnyShape(t *testing.T) {
	t.Parallel()
	pairs := []struct {
		name         string
		outer, inner headers.Options
	}{
		{"draft 6 outside draft 11", headers.Options{Draft: headers.DraftIETF6}, headers.Options{}},
		{"draft 11 outside X-RateLimit only", headers.Options{Omit: headers.XRateLimit}, headers.Options{Omit: headers.IETF}},
		{"draft 7 outside draft 6", headers.Options{Draft: headers.DraftIETF7, Omit: headers.XRateLimit}, headers.Options{Draft: headers.DraftIETF6}},
		{"inside omits Retry-After", headers.Options{}, headers.Options{Omit: headers.RetryAfter}},
		{"inside renames X-RateLimit", headers.Options{Omit: headers.IETF}, headers.Options{Omit: headers.IETF | headers.RetryAfter,
			Names: map[headers.Field]string{headers.XRateLimitRemaining: "X-Rate-Limit-Remaining", headers.XRateLimitReset: "X-Rate-Limit-Reset"}}},
	}
	for _, p := range pairs {
		clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
		mw := func(name string, a core.Algorithm, o headers.Options) *middleware.Middleware {
			l, err := core.NewLimiter(core.MustPolicy(name, core.Limit{Name: name, Algorithm: a}), core.WithClock(clk))
			require.NoError(t, err)
			w, err := headers.New(o)
			require.NoError(t, err)
			m, err := middleware.New(l, middleware.Options{Headers: w, Key: func(*http.Request) (string, error) { return "client", nil }})
			require.NoError(t, err)
			return m
		}
		outer := mw("global", core.FixedWindow{Quota: 2, Window: time.Minute}, p.outer)
		inner := mw("route", core.GCRA{Rate: core.Per(1, 10*time.Second), Burst: 1}, p.inner)
		h := outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
		require.Equal(t, http.StatusOK, getOnce(h).Code, p.name)
		clk.Advance(time.Second)
		rec := getOnce(h) // the outer's last unit; the inner refuses for 9 s
		require.Equal(t, http.StatusTooManyRequests, rec.Code, p.name)
		hd := rec.Header()
		assert.Equal(t, "59", hd.Get("Retry-After"), p.name)
		due := strconv.FormatInt(clk.Now().Unix()+59, 10)
		for _, f := range []string{"X-RateLimit-Reset", "X-Rate-Limit-Reset"} {
			if v := hd.Get(f); v != "" {
				assert.Equal(t, due, v, "%s: %s", p.name, f)
			}
		}
		if p.inner.Draft == headers.DraftIETF6 {
			assert.Equal(t, "59", hd.Get("RateLimit-Reset"), p.name)
		}
		clk.Advance(58 * time.Second)
		require.Equal(t, http.StatusTooManyRequests, getOnce(h).Code, "%s: a second early", p.name)
	}
}
