package localfirst_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBindRefusesUnsyncable: every algorithm whose state is not a sum of
// window counts is refused at Bind (and by Supports) with an error that
// wraps core.ErrInvalidConfig and says why; window counters are accepted.
func TestBindRefusesUnsyncable(t *testing.T) {
	t.Parallel()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // Bind never calls Redis
	t.Cleanup(func() { _ = client.Close() })
	s, err := localfirst.New(client, localfirst.Options{Nodes: 2})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		alg  core.Algorithm
		why  string // a part of the error
	}{
		{"GCRA", core.GCRA{Rate: core.PerSecond(10), Burst: 5}, "max(state, now)"},
		{"TokenBucket", core.TokenBucket{Rate: core.PerSecond(10), Burst: 5}, "max(state, now)"},
		{"LeakyBucket", core.LeakyBucket{Rate: core.PerSecond(10), Capacity: 5}, "one queue"},
		{"SlidingLog", core.SlidingLog{Quota: 5, Window: time.Second}, "timestamp"},
		{"Hybrid", core.Hybrid{Quota: 5, Window: time.Minute}, "order of events"},
		{"RollingWindow", core.RollingWindow{Quota: 10, Window: time.Hour, Period: time.Minute}, "not implemented"},
		{"anchored FixedWindow", core.FixedWindow{Quota: 5, Window: time.Second, Anchored: true}, "Anchored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := core.MustPolicy("p", core.Limit{Name: "l", Algorithm: tc.alg})
			_, err := s.Bind(p)
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.why)
			assert.ErrorIs(t, localfirst.Supports(p), core.ErrInvalidConfig)
		})
	}
	for _, alg := range []core.Algorithm{core.FixedWindow{Quota: 5, Window: time.Second}, core.SlidingWindow{Quota: 5, Window: time.Second}} {
		p := core.MustPolicy("p", core.Limit{Name: "l", Algorithm: alg})
		require.NoError(t, localfirst.Supports(p))
		_, err := s.Bind(p)
		require.NoError(t, err)
	}
}
