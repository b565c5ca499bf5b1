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

// TestBindRefusesUnsyncable: every algorithm whose state is neither a
// count per window nor a bucket is refused at Bind (and by Supports) with
// an error that wraps core.ErrInvalidConfig and says why, and so is a
// bucket whose burst refills in more than a day; window counters and
// buckets are accepted.
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
		{"slow GCRA", core.GCRA{Rate: core.PerHour(10), Burst: 250}, "refills in 25h0m0s"},
		{"slow TokenBucket", core.TokenBucket{Rate: core.Per(100, 48*time.Hour)}, "refills in 48h0m0s"},
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
	for _, alg := range []core.Algorithm{
		core.FixedWindow{Quota: 5, Window: time.Second}, core.SlidingWindow{Quota: 5, Window: time.Second},
		core.GCRA{Rate: core.PerMinute(10)}, core.TokenBucket{Rate: core.PerSecond(1000), Burst: 50},
	} {
		p := core.MustPolicy("p", core.Limit{Name: "l", Algorithm: alg})
		require.NoError(t, localfirst.Supports(p))
		_, err := s.Bind(p)
		require.NoError(t, err)
	}
}

// TestNewRefusesBracedPrefix: a Prefix holding '{' or '}' is refused:
// Redis Cluster hashes a key's first {…}, which must be the store's own
// hash tag, or a round's script call would touch keys of several slots
// (CROSSSLOT: every round failing) or every key of the fleet one slot.
func TestNewRefusesBracedPrefix(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })
	for _, prefix := range []string{"fg{", "fg:{}:", "a}b"} {
		_, err := localfirst.New(c, localfirst.Options{Prefix: prefix})
		require.ErrorIs(t, err, core.ErrInvalidConfig, prefix)
	}
}
