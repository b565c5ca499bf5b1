package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackFailLocalCountsRedisAdmissions: a process under FailLocal
// that took 9 of a key's 10/hour in Redis, and then lost Redis, granted
// its local share again within the hour: 10 more at LocalShare 1 (19 in
// the hour, one process), 5 more at 1/2. What Redis admitted is now
// charged to the local limiter too, as far as its share holds it: over
// the hour the process grants at most the limit (10), or the 9 already
// admitted when they exceed its share.
func TestAttackFailLocalCountsRedisAdmissions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		share float64
		total int
	}{{1, 10}, {0.5, 9}} {
		srv := redistest.Start(t)
		px := faultproxy.Start(t, srv.Addr())
		s, _ := faultStore(t, patientClient(t, px.Addr()), redisstore.Options{Timeout: noDeadline,
			FailureMode: redisstore.FailLocal, LocalShare: tc.share, CallerClock: true})
		ctx := context.Background()
		require.NoError(t, s.Check(ctx))
		l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour}}),
			core.WithStore(s), core.WithClock(coretest.NewClock(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC))))
		require.NoError(t, err)
		total := 0
		for range 9 {
			r, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, r.Allowed)
			total++
		}
		px.Refuse(true)
		px.Drop()
		for range 20 {
			r, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			if r.Allowed {
				total++
			}
		}
		assert.True(t, s.Down())
		assert.Equal(t, tc.total, total, "share %v: admitted in the hour", tc.share)
	}
}
