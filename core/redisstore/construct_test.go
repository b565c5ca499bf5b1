package redisstore_test

import (
	"math"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// New and Bind refuse nil, typed-nil and zero essentials with an error
// wrapping core.ErrInvalidConfig instead of panicking at the first
// decision. None of these cases reaches a server.
func TestConstructorsRefuseNilAndZero(t *testing.T) {
	t.Parallel()
	p := core.MustPolicy("p", core.Limit{Algorithm: core.GCRA{Rate: core.PerSecond(1)}})
	for name, build := range map[string]func() error{
		"New(nil)":                    func() error { _, err := redisstore.New(nil, redisstore.Options{}); return err },
		"New(typed nil *Client)":      func() error { _, err := redisstore.New((*redis.Client)(nil), redisstore.Options{}); return err },
		"New(typed nil *Cluster)":     func() error { _, err := redisstore.New((*redis.ClusterClient)(nil), redisstore.Options{}); return err },
		"zero Store, Bind":            func() error { _, err := new(redisstore.Store).Bind(p); return err },
		"nil *Store, Bind":            func() error { _, err := (*redisstore.Store)(nil).Bind(p); return err },
		"ScalePolicy(nil)":            func() error { _, err := redisstore.ScalePolicy(nil, 0.5); return err },
		"ScalePolicy(zero)":           func() error { _, err := redisstore.ScalePolicy(&core.Policy{}, 0.5); return err },
		"Supports(nil)":               func() error { return redisstore.Supports(nil) },
		"NewLimiter(zero Store)":      func() error { _, err := core.NewLimiter(p, core.WithStore(new(redisstore.Store))); return err },
		"NewLimiter(typed nil Store)": func() error { _, err := core.NewLimiter(p, core.WithStore((*redisstore.Store)(nil))); return err },
	} {
		assert.ErrorIs(t, build(), core.ErrInvalidConfig, name)
	}
}

// TestNewRefusesOutOfRangeOptions: a Prefix holding a brace, and options past what the store's
// arithmetic holds are refused at construction, as redisinflight's are: a
// Timeout of math.MaxInt64 was accepted (4 × Timeout, the bound on a
// Cluster's reads, overflowed), Failures above 2^31-1 wrapped in the
// breaker's int32, a ProbeMax near math.MaxInt64 overflowed its doubling.
func TestNewRefusesOutOfRangeOptions(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })
	for name, o := range map[string]redisstore.Options{
		"Timeout":  {Timeout: math.MaxInt64},
		"Failures": {Failures: math.MaxInt32 + 1},
		"ProbeMax": {ProbeMax: math.MaxInt64},
		// A brace takes the place of the keys' own hash tag on a Cluster.
		"Prefix {":  {Prefix: "fg{"},
		"Prefix {}": {Prefix: "fg:{}:"},
	} {
		_, err := redisstore.New(c, o)
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
	}
	s, err := redisstore.New(c, redisstore.Options{Timeout: time.Hour, Failures: math.MaxInt32, ProbeMax: time.Hour})
	require.NoError(t, err, "the largest accepted")
	require.NoError(t, s.Close())
}
