package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestAttackDenyCacheOutlastsRedisAfterAStall: with Redis's clock, a
// denial the deny cache remembers lasts at least as long as Redis's from
// the instant the request was sent, however long before that the caller
// read its clock (a goroutine stalled between the two on a loaded
// machine). The cache ran the denial from the caller's reading plus the
// round trip: a stall of 10 s ended it 10 s before Redis's, and a client
// retrying at the RetryAfter the cache gave was denied again by Redis (a
// CI run under load saw it, 0.5 and 4.4 ms short).
func TestAttackDenyCacheOutlastsRedisAfterAStall(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	s, err := New(srv.Client(t), Options{Prefix: "stall:", Timeout: 30 * time.Second})
	require.NoError(t, err)
	defer s.Close()
	p := core.MustPolicy("stall", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(1), Burst: 1}})
	tb, err := s.Bind(p)
	require.NoError(t, err)
	ctx := context.Background()
	const stall = 10 * time.Second
	take := func(now int64) store.Decision {
		d, err := tb.Do(ctx, store.Request{Op: store.OpTake, Key: "k", Cost: 1, Now: now})
		require.NoError(t, err)
		return d
	}
	require.True(t, take(time.Now().UnixNano()).Outcomes[0].Allowed)
	// Read 10 s before it is sent.
	sent := time.Now()
	d := take(sent.Add(-stall).UnixNano())
	require.False(t, d.Outcomes[0].Allowed)
	require.Equal(t, store.SourceStore, d.Source)
	redisUntil := sent.Add(d.Outcomes[0].RetryAfter) // Redis decided after sent
	asked := time.Now()
	c := take(asked.UnixNano())
	require.Equal(t, store.SourceCache, c.Source, "the cache answers")
	require.False(t, c.Outcomes[0].Allowed)
	cacheUntil := time.Now().Add(c.Outcomes[0].RetryAfter) // at the latest
	require.False(t, cacheUntil.Before(redisUntil), "the cache's denial ends %v before Redis's", redisUntil.Sub(cacheUntil))
	require.LessOrEqual(t, c.Outcomes[0].ResetAfter, d.Outcomes[0].ResetAfter)
}
