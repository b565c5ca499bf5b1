package redisinflight_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestNewRefusesLeaseTooShortToRenew: held slots are renewed by default,
// and a renewal that misses its deadline is tried again only while a try
// can still reach Redis before the lease ends, 2 × Timeout before it
// (Options.ManualRenew: "keep Lease above 6 × Timeout"). Below that, New
// accepted a Lease the renewal cannot keep: with a 300 ms Lease and the
// default Timeout of 100 ms, the renewal at 100 ms missing its deadline
// left 100 ms, no retry, and the lease was reported lost while its
// request ran on, its slot another's a moment later (one Redis hiccup and
// a limit of 1 had 2 in flight). Such a Lease is now refused at
// construction, unless ManualRenew is set; 6 × Timeout is accepted (the
// same miss leaves a retry 50 ms later).
func TestNewRefusesLeaseTooShortToRenew(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for name, opts := range map[string]redisinflight.Options{
		"300 ms, default Timeout":  {Lease: 300 * time.Millisecond},
		"1 s, Timeout 500 ms":      {Lease: time.Second, Timeout: 500 * time.Millisecond},
		"just below 6 × Timeout":   {Lease: 599 * time.Millisecond},
		"an hour, Timeout an hour": {Lease: time.Hour, Timeout: time.Hour},
	} {
		_, err := redisinflight.New(c, 1, opts)
		require.ErrorIs(t, err, core.ErrInvalidConfig, name)
		require.ErrorContains(t, err, "6 × Timeout", name)
		opts.ManualRenew = true
		_, err = redisinflight.New(c, 1, opts)
		require.NoError(t, err, "%s with ManualRenew: the caller renews", name)
	}
	for name, opts := range map[string]redisinflight.Options{
		"600 ms, default Timeout": {Lease: 600 * time.Millisecond},
		"6 h, Timeout an hour":    {Lease: 6 * time.Hour, Timeout: time.Hour},
		"defaults":                {},
	} {
		_, err := redisinflight.New(c, 1, opts)
		require.NoError(t, err, name)
	}
}
