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
	"github.com/stretchr/testify/require"
)

// TestAttackFailLocalCountsAcquiresInFlight: under FailLocal, an Acquire
// decided locally (MaxCalls Acquires outstanding: a flood on a Redis that
// answers slowly; or the breaker opened by others' faults) must leave room
// for the Acquires of its key still on their way to Redis, which may yet
// take a lease. Before, only the leases already taken counted: at a limit
// of 1, one Acquire in flight to Redis and one decided locally meanwhile
// were both granted, 2 requests in flight. Now an Acquire counts against
// the local share from the moment it is sent.
func TestAttackFailLocalCountsAcquiresInFlight(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	h := holdHook{started: make(chan struct{}, 1), release: make(chan struct{})}
	c.AddHook(h)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, c, 1, redisinflight.Options{Clock: clk, Lease: time.Hour, MaxCalls: 1,
		FailureMode: redisstore.FailLocal, LocalShare: 1})
	bg := context.Background()
	warm, err := l.Acquire(bg, "warm") // (loads the script: the held round trip is one EVALSHA)
	require.NoError(t, err)
	require.NoError(t, warm.Release(bg))

	type got struct {
		s   *inflight.Slot
		err error
	}
	first := make(chan got, 1)
	go func() {
		s, err := l.Acquire(context.WithValue(bg, heldKey{}, true), "k")
		first <- got{s, err}
	}()
	within.Recv(t, h.started, "the first Acquire's round trip in flight")

	granted := 0
	within.Until(t, "the warm-up's round trips over", func() bool { return redisinflight.Outstanding(l) == 1 })
	second, err := l.Acquire(bg, "k") // MaxCalls outstanding: decided locally
	if err == nil {
		granted++
	} else {
		require.ErrorIs(t, err, inflight.ErrFull)
	}
	close(h.release)
	g := within.Recv(t, first, "the first Acquire")
	if g.err == nil {
		granted++
	} else {
		require.ErrorIs(t, g.err, inflight.ErrFull)
	}
	require.Equal(t, 1, granted, "a key of limit 1 has 1 slot, whichever side grants it")

	for _, s := range []*inflight.Slot{second, g.s} {
		if s != nil {
			require.NoError(t, s.Release(bg))
		}
	}
	within.Until(t, "no round trip outstanding", func() bool { return redisinflight.Outstanding(l) == 0 })
	s, err := l.Acquire(bg, "k")
	require.NoError(t, err, "everything released: the key's slot is free")
	_, err = l.Acquire(bg, "k")
	require.ErrorIs(t, err, inflight.ErrFull)
	require.NoError(t, s.Release(bg))
}
