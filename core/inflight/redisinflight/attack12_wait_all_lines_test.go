package redisinflight_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// TestAttackWaitersOfOtherKeysLockOutFreeKeysRedis: a flood fills
// MaxWaiting, the bound of all lines, with waiters on keys of its own
// whose slots it holds. Before, Wait joined its key's line before asking
// Redis: every other key was refused with ErrQueueFull (3 of 3, every
// slot of theirs free, in every failure mode), so that the middleware's
// Wait answered every client 429. Now a key nobody waits for is tried as
// an Acquire without a place in line: 0 of 3 refused, each lease in
// Redis; a key whose slots are all held, and a key whose own line is full
// (MaxWaiters), are still refused at once, taking nothing. With Redis
// unreachable, that try is decided by the failure mode, as Wait's first
// try is: ErrUnavailable under FailClosed, a slot under FailOpen, a local
// slot within the local share under FailLocal (never two of limit 1).
func TestAttackWaitersOfOtherKeysLockOutFreeKeysRedis(t *testing.T) {
	for _, mode := range []redisstore.FailureMode{redisstore.FailClosed, redisstore.FailOpen, redisstore.FailLocal} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			const flood = 2
			srv := redistest.Start(t)
			proxy, pc := proxied(t, srv)
			gate := newPollGate(t) // counts the flood's Acquire scripts
			pc.AddHook(gate)
			// PollInterval of an hour: the flood's heads never poll.
			l := newLimiter(t, pc, 1, redisinflight.Options{MaxWaiters: 1, MaxWaiting: flood,
				PollInterval: time.Hour, FailureMode: mode, LocalShare: 1})
			bg := context.Background()
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			var done []<-chan waited
			for i := range flood {
				key := fmt.Sprint("flood-", i)
				s, err := l.Acquire(bg, key)
				require.NoError(t, err)
				defer func() { _ = s.Release(bg) }()
				rk := redisinflight.LeaseSet(l, key)
				gate.watch(rk)
				done = append(done, wait(ctx, l, key))
				within.Until(t, "the flood's waiter in line, its first try over", func() bool {
					return l.Waiting(key) == 1 && gate.sent(rk) == 1 && redisinflight.Outstanding(l) == 0
				})
			}

			refused := 0
			for i := range 3 {
				key := fmt.Sprint("client-", i)
				s, err := l.Wait(bg, key)
				if err != nil {
					require.ErrorIs(t, err, inflight.ErrQueueFull)
					refused++
					continue
				}
				n, err := srv.Client(t).ZCard(bg, redisinflight.LeaseSet(l, key)).Result()
				require.NoError(t, err)
				require.EqualValues(t, 1, n, "its lease is in Redis")
				_, err = l.Wait(bg, key)
				require.ErrorIs(t, err, inflight.ErrQueueFull, "its only slot held: refused at once")
				require.NoError(t, s.Release(bg))
			}
			require.Zero(t, refused, "clients refused a free slot for want of a place in line")

			busy, err := l.Acquire(bg, "busy")
			require.NoError(t, err)
			_, err = l.Wait(bg, "busy")
			require.ErrorIs(t, err, inflight.ErrQueueFull, "a key that must wait is refused at once")
			n, err := srv.Client(t).ZCard(bg, redisinflight.LeaseSet(l, "busy")).Result()
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "the refused Wait took no lease")
			require.NoError(t, busy.Release(bg))
			_, err = l.Wait(bg, "flood-0")
			require.ErrorIs(t, err, inflight.ErrQueueFull, "its own line full (MaxWaiters)")

			// Redis unreachable: the try is the failure mode's, as an
			// Acquire's; the bound of a key's line still refuses first.
			proxy.Refuse(true)
			proxy.Drop()
			s, err := l.Wait(bg, "down")
			if mode == redisstore.FailClosed {
				require.ErrorIs(t, err, redisstore.ErrUnavailable)
				require.Nil(t, s)
			} else {
				require.NoError(t, err, "decided by the failure mode, not refused for want of a place")
				again, err := l.Wait(bg, "down")
				if mode == redisstore.FailLocal {
					require.ErrorIs(t, err, inflight.ErrQueueFull, "the local slot of limit 1 held: refused")
				} else {
					require.NoError(t, err, "FailOpen admits as an Acquire does")
					require.NoError(t, again.Release(bg))
				}
				require.NoError(t, s.Release(bg))
			}
			_, err = l.Wait(bg, "flood-1")
			require.ErrorIs(t, err, inflight.ErrQueueFull, "its own line full (MaxWaiters), whatever the mode")

			cancel()
			for _, d := range done {
				require.ErrorIs(t, within.Recv(t, d, "a flood's Wait").err, context.Canceled)
			}
			require.Zero(t, l.Waiting("flood-0")+l.Waiting("flood-1"))
		})
	}
}
