package middleware_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request whose shaping delay passes MaxDelay is answered 429: observers
// and the heavy-hitter sketch count it as the denial it is, on a limiter
// alone and behind Overrides. Before, with LeakyBucket 1/s capacity 10 and
// a MaxDelay of 1.5 s, a client sending 10 requests got 2 served and 8
// answered 429, and every metric said 10 admitted (1 allowed, 9 shaped,
// 0 denied; TopKeys: admitted 10, denied 0): a flood shaped into 429s
// showed as traffic served.
func TestAttackMaxDelayDenialObservedAsDenied(t *testing.T) {
	p, err := core.Single("api", core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 10})
	require.NoError(t, err)
	for name, mk := range map[string]func(opts ...core.Option) (middleware.Limiter, *core.Limiter){
		"Limiter": func(opts ...core.Option) (middleware.Limiter, *core.Limiter) {
			l, err := core.NewLimiter(p, opts...)
			require.NoError(t, err)
			return l, l
		},
		"Overrides": func(opts ...core.Option) (middleware.Limiter, *core.Limiter) {
			none := func(context.Context, string) (*core.Policy, bool, error) { return nil, false, nil }
			o, err := core.NewOverrides(p, none, core.OverrideOptions{}, opts...)
			require.NoError(t, err)
			return o, o.Default()
		},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				obs := &coretest.Observer{}
				lim, l := mk(core.WithClock(newClock()), core.WithObserver(obs), core.WithTopKeys(core.TopKeysOptions{}))
				h := handler(t, lim, middleware.Options{MaxDelay: 1500 * time.Millisecond}, okHandler)
				codes := map[int]int{}
				for range 10 {
					codes[get(h, "192.0.2.1:1").Code]++
				}
				require.Equal(t, map[int]int{http.StatusOK: 2, http.StatusTooManyRequests: 8}, codes)

				verdicts := map[core.Verdict]int{}
				for _, d := range obs.Decisions() {
					verdicts[d.Verdict]++
					if d.Verdict == core.VerdictDenied {
						assert.Zero(t, d.Delay, "a denial delays nothing")
						assert.Equal(t, time.Second-500*time.Millisecond, d.RetryAfter, "the wait after which the delay is MaxDelay")
					}
				}
				assert.Equal(t, map[core.Verdict]int{core.VerdictAllowed: 1, core.VerdictShaped: 1, core.VerdictDenied: 8}, verdicts)

				top, ok := l.TopKeys(1)
				require.True(t, ok)
				require.Len(t, top.Keys, 1)
				assert.Equal(t, int64(2), top.Keys[0].Admitted)
				assert.Equal(t, int64(8), top.Keys[0].Denied)

				res, err := l.Peek(context.Background(), "192.0.2.1/32", 1)
				require.NoError(t, err)
				assert.Equal(t, 2*time.Second, res.Delay, "the 8 refused requests hold nothing")
			})
		})
	}
}

// A value a client writes is never copied whole into the errors reported
// to OnError, which applications log once per request: an address header
// keyed by keyfunc.AddrKey (behind echolimit.RealIP, an IPExtractor may
// read X-Real-IP as sent) and a tier named from a header. Before, a request
// carrying 1 MiB in such a header made an error of 1 MiB + 40 bytes (a
// line per request of the client's size: logs filled at a megabyte per
// request); an error now quotes at most 64 bytes of it.
func TestAttackClientValuesClippedInReportedErrors(t *testing.T) {
	huge := strings.Repeat("A", 1<<20)
	var errs []error
	onError := func(_ *http.Request, err error) { errs = append(errs, err) }
	byAddr, err := middleware.New(limiter(t, newClock(), core.FixedWindow{Quota: 10, Window: time.Hour}), middleware.Options{
		Key:     func(r *http.Request) (string, error) { return keyfunc.AddrKey(r.Header.Get("X-Real-Ip")) },
		OnError: onError,
	})
	require.NoError(t, err)
	sel, err := middleware.Tiers(func(r *http.Request) (string, error) { return r.Header.Get("X-Plan"), nil },
		map[string]middleware.Limiter{"free": limiter(t, newClock(), core.FixedWindow{Quota: 10, Window: time.Hour})})
	require.NoError(t, err)
	byTier, err := middleware.NewSelect(sel, middleware.Options{Key: perIP(t), OnError: onError})
	require.NoError(t, err)
	for _, h := range []http.Handler{byAddr.Handler(okHandler), byTier.Handler(okHandler)} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "192.0.2.1:1"
		r.Header.Set("X-Real-Ip", huge)
		r.Header.Set("X-Plan", huge)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.NotEqual(t, http.StatusOK, w.Code)
	}
	require.Len(t, errs, 2)
	assert.ErrorIs(t, errs[0], keyfunc.ErrNoKey)
	assert.ErrorIs(t, errs[1], middleware.ErrUnknownTier)
	for _, err := range errs {
		assert.LessOrEqual(t, len(err.Error()), 200, "%.100s…", err)
	}
}
