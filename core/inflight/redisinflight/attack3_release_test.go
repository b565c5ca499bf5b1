package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// heldKey marks, in a context, the round trips holdHook holds.
type heldKey struct{}

// holdHook holds the commands sent with heldKey in their context until
// release is closed, telling started of each: round trips in flight on a
// Redis that answers, as long as the test says.
type holdHook struct {
	started chan struct{}
	release chan struct{}
}

func (h holdHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h holdHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if ctx.Value(heldKey{}) != nil {
			h.started <- struct{}{}
			<-h.release
		}
		return next(ctx, cmd)
	}
}

func (h holdHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestAttackBusyCallsDropNoRelease: MaxCalls Acquires in flight (a
// client's flood, on a Redis that answers) must not keep the slots held
// by others from Redis. Before, the release of another client's slot, and
// its renewal, failed at once (MaxCalls round trips outstanding): its
// lease stayed for the whole Lease (a minute here) and that client's key
// (limit 1) admitted nothing although its request had ended. Releases and
// renewals now have a budget of MaxCalls round trips of their own.
func TestAttackBusyCallsDropNoRelease(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	h := holdHook{started: make(chan struct{}, 2), release: make(chan struct{})}
	c.AddHook(h)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, c, 1, redisinflight.Options{Clock: clk, Lease: time.Minute, MaxCalls: 2})
	bg := context.Background()
	victim, err := l.Acquire(bg, "victim")
	require.NoError(t, err)
	// (Its round trip's goroutine gives its token back after the reply.)
	within.Until(t, "no round trip outstanding", func() bool { return redisinflight.Outstanding(l) == 0 })

	// The flood: MaxCalls Acquires of the attacker's key, in flight.
	held := context.WithValue(bg, heldKey{}, true)
	errc := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := l.Acquire(held, "attacker") // (held until the test ends)
			errc <- err
		}()
	}
	for range 2 {
		within.Recv(t, h.started, "an attacker's round trip in flight")
	}
	_, err = l.Acquire(bg, "victim")
	require.ErrorIs(t, err, redisstore.ErrUnavailable, "Acquires beyond MaxCalls are shed")
	require.NoError(t, victim.Renew(bg), "the renewal of a slot held reaches Redis")
	require.NoError(t, victim.Release(bg), "the release reaches Redis")
	close(h.release)
	for range 2 {
		if err := within.Recv(t, errc, "an attacker's Acquire"); err != nil {
			require.ErrorIs(t, err, inflight.ErrFull, "one of the two gets the attacker's slot")
		}
	}
	within.Until(t, "no round trip outstanding", func() bool { return redisinflight.Outstanding(l) == 0 })
	s, err := l.Acquire(bg, "victim")
	require.NoError(t, err, "the victim's key is free: its request ended")
	_, err = l.Acquire(bg, "victim")
	require.ErrorIs(t, err, inflight.ErrFull)
	require.NoError(t, s.Release(bg))
}
