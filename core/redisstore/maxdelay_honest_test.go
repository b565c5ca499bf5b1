package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMaxDelayHonestRedis: under core.WithMaxDelay, RetryAfter and
// Remaining are exact on the Redis store (its caller's clock) as on the
// memory store (to its µs: a retry 1 ns early is admitted as well), and so during an outage under FailLocal (share 1): see
// coretest.MaxDelayHonest. Before, the first schedule on a LeakyBucket
// 1/s, capacity 4, was refused at its RetryAfter.
func TestMaxDelayHonestRedis(t *testing.T) {
	t.Parallel()
	c := startRedis(t).Client(t)
	s := newStore(t, c, redisstore.Options{CallerClock: true})
	down, _ := faultStore(t, defaultClient(t, deadAddr), redisstore.Options{
		FailureMode: redisstore.FailLocal, LocalShare: 1, CallerClock: true, Timeout: noDeadline})
	probe := faultLimiter(t, down, wide)
	for i := 0; i < 100 && !down.Down(); i++ {
		_, _ = probe.Allow(context.Background(), fmt.Sprint("down", i))
	}
	require.True(t, down.Down())
	// Redis decides at whole µs; the local limiter at ns.
	res := map[string]time.Duration{"redis": time.Microsecond, "faillocal": 1}
	for name, st := range map[string]core.Store{"redis": s, "faillocal": down} {
		for _, p := range coretest.MaxDelayPolicies() {
			d, a := coretest.MaxDelayHonest(t, p, st, 1, 20, res[name])
			assert.Positive(t, d, "%s %s", name, p.Name())
			assert.Positive(t, a, "%s %s", name, p.Name())
		}
	}
}
