package redisinflight_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// acquireCount is a go-redis hook counting the Acquire scripts sent per
// lease set.
type acquireCount struct {
	mu   sync.Mutex
	sent map[string]int
}

func (h *acquireCount) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *acquireCount) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *acquireCount) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		a := cmd.Args()
		if sha, ok := a[0].(string); ok && len(a) > 3 && (sha == "evalsha" || sha == "eval") {
			if s, _ := a[1].(string); redisinflight.SendsAcquire([]byte(s)) {
				rk, _ := a[3].(string)
				h.mu.Lock()
				h.sent[rk]++
				h.mu.Unlock()
			}
		}
		return next(ctx, cmd)
	}
}

func (h *acquireCount) of(rk string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sent[rk]
}

// TestAttackWaitersDelayOtherProcessesReleases: a waiting head saw a slot
// freed by another process only at its next poll, and the heads of every
// line take turns to poll (MaxPolls per PollInterval): an attacker
// holding the slots of many keys of its own, with a waiter on each, put
// (its heads ÷ MaxPolls) × PollInterval between an innocent key's release
// in one process and its waiter's admission in another: 1,200 heads at
// the default 50 ms, a minute. Here 4 heads polling each minute (MaxPolls
// 1) stand for them: the innocent waiter was still waiting when its
// caller gave up, 20 s after the release. A release now tells the waiting
// heads of every process (Redis pub/sub): it is admitted at once.
func TestAttackWaitersDelayOtherProcessesReleases(t *testing.T) {
	t.Parallel()
	const heads = 4
	srv := redistest.Start(t)
	opts := redisinflight.Options{Lease: time.Hour, PollInterval: time.Minute, MaxPolls: 1}
	a := newLimiter(t, srv.Client(t), 1, opts) // the process holding the slots
	bc := srv.Client(t)
	count := &acquireCount{sent: make(map[string]int)}
	bc.AddHook(count)
	b := newLimiter(t, bc, 1, opts) // the process where callers wait
	bg := context.Background()
	atk, stop := context.WithCancel(bg)
	var done sync.WaitGroup
	defer done.Wait()
	defer stop()
	for i := range heads {
		k := fmt.Sprint("attacker", i)
		_, err := a.Acquire(bg, k)
		require.NoError(t, err)
		done.Go(func() { _, _ = b.Wait(atk, k) })
	}
	within.Until(t, "the attacker's heads waiting, their first tries answered", func() bool {
		for i := range heads {
			if count.of(redisinflight.LeaseSet(b, fmt.Sprint("attacker", i))) == 0 {
				return false
			}
		}
		return redisinflight.Outstanding(b) == 0
	})

	held, err := a.Acquire(bg, "innocent")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(bg, 20*time.Second) // no verdict waits for it on a correct build
	defer cancel()
	got := wait(ctx, b, "innocent")
	within.Until(t, "the innocent waiter's first try answered", func() bool {
		return count.of(redisinflight.LeaseSet(b, "innocent")) >= 1 && redisinflight.Outstanding(b) == 0
	})
	require.NoError(t, held.Release(bg))
	r := within.Recv(t, got, "the innocent Wait")
	require.NoError(t, r.err, "the slot freed in the other process")
	require.NoError(t, r.s.Release(bg))
	stop()
	done.Wait()
	within.Until(t, "the pub/sub connection closed once nobody listens", func() bool { return !redisinflight.Listening(b) })
}
