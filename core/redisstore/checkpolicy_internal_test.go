package redisstore

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckPolicyLeavesTheProbeListAlone: CheckPolicy changes nothing in
// the store. Its CheckRebind bound the checked policy, which added its
// script to the list Store.Check probes (at most 64): 100 checks filled
// it, and a policy bound afterwards was never probed (found by an
// adversarial review). CheckRebind and CheckBind now compile and scale,
// binding nothing.
func TestCheckPolicyLeavesTheProbeListAlone(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 10 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c, Options{FailureMode: FailLocal, LocalShare: 0.5})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerSecond(10)}}), core.WithStore(s))
	require.NoError(t, err)
	probed := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.bound)
	}
	before := probed()
	for i := range 100 {
		require.NoError(t, l.CheckPolicy(core.MustPolicy("p",
			core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerSecond(int64(11 + i))}},
			core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: int64(5 + i), Window: time.Minute}, Shadow: true})))
	}
	assert.Equal(t, before, probed(), "scripts Check probes")
	_, err = core.NewLimiter(core.MustPolicy("q", core.Limit{Name: "b", Algorithm: core.GCRA{Rate: core.PerSecond(10)}}), core.WithStore(s))
	require.NoError(t, err)
	assert.Equal(t, before+1, probed(), "a policy bound now is probed")
}
