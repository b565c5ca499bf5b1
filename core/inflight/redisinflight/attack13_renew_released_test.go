package redisinflight_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// TestAttackRenewalAfterReleaseReportsNoLostLease: a renewal timer that
// fires as its slot is released (its Stop too late) ran the renewal after
// the release's ZREM: the renewal found the lease gone and told OnError
// the lease was lost (1 false "lease lost" per such race, and a round
// trip to Redis), for a slot released in order. A renewal of a released
// slot now sends nothing and reports nothing.
func TestAttackRenewalAfterReleaseReportsNoLostLease(t *testing.T) {
	t.Parallel()
	srv, proxy, _, _, holder, timers, lost := autoRenewing(t)
	ctx := context.Background()
	s, err := holder.Acquire(ctx, "k")
	require.NoError(t, err)
	timer := within.Recv(t, timers, "the slot's renewal timer")
	require.NoError(t, s.Release(ctx))
	require.Positive(t, timer.Stops()) // (read safely: the slot, now garbage, may be collected and stop it again)

	sent := scriptsRun(t, srv)
	timer.Renew() // fired before the release stopped it: runs after it
	require.Zero(t, lost.Load(), "a released slot's lease is not lost")
	require.Equal(t, sent, scriptsRun(t, srv), "nothing sent for a released slot")
	require.Equal(t, 0, redisinflight.Outstanding(holder))
	_ = proxy
}

var scriptCalls = regexp.MustCompile(`cmdstat_(?:evalsha|eval):calls=(\d+)`)

// scriptsRun is how many scripts srv has run (EVAL and EVALSHA).
func scriptsRun(t *testing.T, srv *redistest.Server) int {
	t.Helper()
	info, err := srv.Client(t).Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	n := 0
	for _, m := range scriptCalls.FindAllStringSubmatch(info, -1) {
		c, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		n += c
	}
	return n
}
