package floodgate_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// t0 is Unix second 1767323045: 5 s into an epoch-aligned 10 s window.
var t0 = time.Unix(1767323045, 0).UTC()

// TestBehaviourTable runs the behaviour table (internal/stacktest) through
// net/http: every case must get exactly its expected answers. The adapters'
// stacks module runs the same table through chi, gin and echo and requires
// their answers to equal these.
func TestBehaviourTable(t *testing.T) {
	stacktest.Run(t, stacktest.NetHTTP)
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
		core.FixedWindow{Quota: 3, Window: 7 * time.Second},
		core.SlidingLog{Quota: 3, Window: 7 * time.Second},
		core.SlidingWindow{Quota: 3, Window: 7 * time.Second},
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
