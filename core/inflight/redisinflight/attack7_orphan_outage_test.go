package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// replyHook holds a round trip marked with heldKey once Redis has
// answered it, before its reply reaches the caller.
type replyHook struct {
	answered chan struct{}
	release  chan struct{}
}

func (h replyHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h replyHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if ctx.Value(heldKey{}) != nil {
			h.answered <- struct{}{}
			<-h.release
		}
		return err
	}
}

func (h replyHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestAttackOrphanedLeaseDuringOutageFreesOnReturn: the lease of an
// Acquire whose caller gave up (its client hung up) while its script ran
// must come back once Redis answers again, even when the breaker was open
// as its reply arrived (the cancellation not sent). Before, such a lease
// stayed in Redis, held by nobody, for the rest of Options.Lease (an hour
// here): back on Redis, the key (limit 1) admitted nothing for the hour.
// Now a cancellation that cannot be sent is remembered as an unreleased
// lease, removed by this process's next Acquire of the key.
func TestAttackOrphanedLeaseDuringOutageFreesOnReturn(t *testing.T) {
	t.Parallel()
	for _, mode := range []redisstore.FailureMode{redisstore.FailClosed, redisstore.FailLocal} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			c := srv.Client(t)
			proxy, pc := proxied(t, srv)
			h := replyHook{answered: make(chan struct{}, 1), release: make(chan struct{})}
			pc.AddHook(h)
			clk := coretest.NewClock(t0)
			l := newLimiter(t, pc, 1, redisinflight.Options{Clock: clk, Lease: time.Hour, FailureMode: mode, LocalShare: 1})
			bg := context.Background()
			warm, err := l.Acquire(bg, "warm") // (loads the script: the held round trip is one EVALSHA)
			require.NoError(t, err)
			require.NoError(t, warm.Release(bg))

			ctx, hangUp := context.WithCancel(context.WithValue(bg, heldKey{}, true))
			gave := make(chan error, 1)
			go func() {
				_, err := l.Acquire(ctx, "k")
				gave <- err
			}()
			within.Recv(t, h.answered, "the Acquire's script ran")
			require.EqualValues(t, 1, leases(t, c), "its lease is taken")
			hangUp()
			require.ErrorIs(t, within.Recv(t, gave, "the Acquire gives up"), context.Canceled)

			proxy.Refuse(true)
			proxy.Drop()
			_, err = l.Acquire(bg, "other") // refused: the breaker opens
			if mode == redisstore.FailClosed {
				require.ErrorIs(t, err, redisstore.ErrUnavailable)
			}
			require.True(t, l.Stats().Down)
			close(h.release) // the late reply: a lease taken for nobody, the breaker open
			within.Until(t, "the round trip over", func() bool { return redisinflight.Outstanding(l) == 0 })
			require.EqualValues(t, 1, leases(t, c), "the cancellation was not sent")

			proxy.Refuse(false)
			clk.Advance(time.Second) // past the breaker's wait: back on Redis
			s, err := l.Acquire(bg, "k")
			require.NoError(t, err, "the key's slot is free: its only request gave up during the outage")
			require.False(t, l.Stats().Down, "decided by Redis")
			require.EqualValues(t, 1, leases(t, c))
			require.NoError(t, s.Release(bg))
			require.EqualValues(t, 0, leases(t, c))
		})
	}
}
