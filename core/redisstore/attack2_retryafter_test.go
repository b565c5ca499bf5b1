package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRetryAtRetryAfter: a client retrying exactly at the
// RetryAfter it was given is admitted, whoever gave it: Redis, or the
// deny cache answering the denials after it. At 1, 10, 20 and 40 ms round
// trips. The cache held a denial until RetryAfter from the instant the
// request was sent, while Redis decided up to the one-way latency later:
// a client the cache answered, retrying at the RetryAfter it got, reached
// Redis up to that latency before the instant Redis had given, and was
// denied again about half the time. The cached denial now runs from the
// reply's receipt, after Redis's instant. (No timing in the verdict: a
// retry reaches Redis after the reply it follows, whatever the machine.)
func TestAttackRetryAtRetryAfter(t *testing.T) {
	t.Parallel()
	// 1 per second, one at a time: denials of up to a second, long enough
	// that a request sent at once after an admission is denied on a loaded
	// machine too (at 5 per second, CI once took over 200 ms between two
	// requests at 40 ms RTT, and the second was admitted).
	p := core.MustPolicy("ra", core.Limit{Name: "ra", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 1}})
	for _, rtt := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond} {
		t.Run(rtt.String(), func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			px := faultproxy.Start(t, srv.Addr())
			px.SetLatency(rtt / 2)
			s, _ := faultStore(t, patientClient(t, px.Addr()), redisstore.Options{Timeout: noDeadline})
			l := faultLimiter(t, s, p)
			ctx := context.Background()
			require.NoError(t, s.Check(ctx))
			// allow returns the decision, and the instants before the
			// request was sent and after its answer.
			allow := func(key string) (r core.Result, sent, at time.Time) {
				sent = time.Now()
				r, err := l.Allow(ctx, key)
				assert.NoError(t, err)
				return r, sent, time.Now()
			}
			var fromRedis, fromCache, denied atomic.Int64
			var wg sync.WaitGroup
			for k := range 32 {
				wg.Go(func() {
					key := fmt.Sprint("k", k)
					if r, _, _ := allow(key); !assert.True(t, r.Allowed, "a first request") {
						return
					}
					// The first denial Redis gives, and for 3 keys in 4 the
					// cache's after it. A machine that stalls a whole
					// interval between two requests has them both
					// admitted; one that stalls past the RetryAfter Redis
					// gave has the cache's denial run out before it is
					// asked (it holds the denial from the reply's receipt,
					// after the request was sent). Then the next one is
					// asked (a bounded number of times): the verdict is on
					// the retry below.
					var r core.Result
					var at time.Time
					by := "Redis"
					for tries := 1; ; tries++ {
						if tries == 10 {
							t.Errorf("%s: %d times admitted at once after an admission", key, tries)
							return
						}
						var sent time.Time
						if r, sent, at = allow(key); r.Allowed {
							continue
						}
						if !assert.Equal(t, core.SourceStore, r.Source(), "denied by Redis") {
							return
						}
						if k%4 == 0 {
							break
						}
						// Ask again: the deny cache answers.
						by = "the cache"
						expiry := sent.Add(r.RetryAfter) // the cached denial runs at least until then
						again, asked, againAt := allow(key)
						if again.Allowed && !asked.Before(expiry) {
							continue
						}
						if !assert.False(t, again.Allowed) || !assert.Equal(t, core.SourceCache, again.Source(), "denied by the cache") {
							return
						}
						r, at = again, againAt
						break
					}
					if by == "Redis" {
						fromRedis.Add(1)
					} else {
						fromCache.Add(1)
					}
					retryAt(at.Add(r.RetryAfter))
					if r, _, _ := allow(key); !r.Allowed {
						denied.Add(1)
						t.Errorf("%s: denied again at the RetryAfter %s gave, retry after %v more", key, by, r.RetryAfter)
					}
				})
			}
			within.Wait(t, &wg, "the test's goroutines")
			t.Logf("RTT %v: %d retries at Redis's RetryAfter, %d at the cache's: %d denied again", rtt, fromRedis.Load(), fromCache.Load(), denied.Load())
		})
	}
}

// retryAt returns at instant at (not before, and as close after as the
// machine allows): a sleep to a millisecond before, then a spin.
func retryAt(at time.Time) {
	if d := time.Until(at) - time.Millisecond; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(at) {
	}
}
