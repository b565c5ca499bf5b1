package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheck: Check passes on a Redis that answers, runs the sync script
// (an ACL that forbids it, or forbids its writes, fails Check with the
// reply, not as Redis unavailable) and leaves no key behind; a Redis that
// does not answer is ErrUnavailable, a round trip not below Timeout is
// ErrTimeoutBelowRTT (the caller's own deadline is not: it blamed
// Timeout), and a clock off Redis's by more than half a SyncPeriod is
// ErrClockSkew.
func TestCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A Timeout left 0 is MaxTimeout: a test that is not about Timeout
	// does not fail on a machine too loaded to answer within 500 ms.
	newStore := func(t *testing.T, c redis.UniversalClient, opts localfirst.Options) *localfirst.Store {
		opts.Nodes = 2
		if opts.Timeout == 0 {
			opts.Timeout = localfirst.MaxTimeout
		}
		s, err := localfirst.New(c, opts)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}

	t.Run("answers", func(t *testing.T) {
		t.Parallel()
		srv := redistest.Start(t)
		c := srv.Client(t)
		require.NoError(t, newStore(t, c, localfirst.Options{}).Check(ctx))
		keys, err := c.Keys(ctx, "*").Result()
		require.NoError(t, err)
		assert.Empty(t, keys, "Check leaves no key behind")
	})

	t.Run("ACL", func(t *testing.T) {
		t.Parallel()
		srv := redistest.Start(t)
		c := srv.Client(t)
		s := newStore(t, c, localfirst.Options{})
		for _, acl := range [][]any{
			{"~*", "+@all", "-evalsha", "-eval", "-script"}, // no script
			{"~*", "+@all", "-hset"},                        // a write the script makes
			{"%R~*", "+@all"},                               // read-only keys
		} {
			require.NoError(t, c.Do(ctx, append([]any{"ACL", "SETUSER", "default", "reset", "on", "nopass", "&*"}, acl...)...).Err())
			err := s.Check(ctx)
			require.Error(t, err, "%v", acl)
			assert.NotErrorIs(t, err, localfirst.ErrUnavailable, "%v: Redis answered", acl)
		}
		require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "default", "reset", "on", "nopass", "~*", "&*", "+@all").Err())
		assert.NoError(t, s.Check(ctx), "allowed again")
	})

	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		srv := redistest.Start(t)
		s := newStore(t, srv.Client(t), localfirst.Options{})
		srv.Kill()
		assert.ErrorIs(t, s.Check(ctx), localfirst.ErrUnavailable)
	})

	t.Run("round trip not below Timeout", func(t *testing.T) {
		t.Parallel()
		srv := redistest.Start(t)
		p := faultproxy.Start(t, srv.Addr())
		p.SetLatency(15 * time.Millisecond) // each way: 30 ms round trips
		s := newStore(t, newClient(t, p.Addr()), localfirst.Options{Timeout: 20 * time.Millisecond})
		assert.ErrorIs(t, s.Check(ctx), localfirst.ErrTimeoutBelowRTT)

		// The caller's own deadline, or a canceled context, is not the
		// store's Timeout: Redis unavailable, not ErrTimeoutBelowRTT.
		wide := newStore(t, newClient(t, p.Addr()), localfirst.Options{})
		short, cancel := context.WithTimeout(ctx, 30*time.Millisecond) // three PINGs take 60 ms
		defer cancel()
		err := wide.Check(short)
		assert.ErrorIs(t, err, localfirst.ErrUnavailable)
		assert.NotErrorIs(t, err, localfirst.ErrTimeoutBelowRTT)
		canceled, cancel2 := context.WithCancel(ctx)
		cancel2()
		err = wide.Check(canceled)
		assert.ErrorIs(t, err, localfirst.ErrUnavailable)
		assert.NotErrorIs(t, err, localfirst.ErrTimeoutBelowRTT)
	})

	t.Run("clock skew", func(t *testing.T) {
		t.Parallel()
		srv := redistest.Start(t)
		c := srv.Client(t)
		const period = time.Second
		for _, tc := range []struct {
			off  time.Duration
			skew bool
		}{
			{0, false},
			{period / 4, false},
			{-period / 4, false},
			{2 * period, true},
			{-2 * period, true},
			{time.Hour, true},
		} {
			err := newStore(t, c, localfirst.Options{SyncPeriod: period, Clock: offClock(tc.off)}).Check(ctx)
			if tc.skew {
				assert.ErrorIs(t, err, localfirst.ErrClockSkew, "%v off", tc.off)
			} else {
				assert.NoError(t, err, "%v off", tc.off)
			}
		}
	})
}

// offClock is the system clock off by its value.
type offClock time.Duration

// Now returns the system clock's time plus c.
func (c offClock) Now() time.Time { return time.Now().Add(time.Duration(c)) }
