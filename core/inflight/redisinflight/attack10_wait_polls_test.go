package redisinflight_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pollGate is a go-redis hook that lets through the first Acquire script
// (EVALSHA) of each lease set it watches, a Wait's first try, and holds
// the next ones, its polls, until the test lets one go (next) or all
// (open).
type pollGate struct {
	mu      sync.Mutex
	seen    map[string]int // Acquire scripts sent, per lease set watched
	held    atomic.Int64   // polls held now
	passed  atomic.Int64   // polls let go
	next    chan struct{}
	open    chan struct{}
	opening sync.Once
}

func newPollGate(t *testing.T) *pollGate {
	g := &pollGate{seen: make(map[string]int), next: make(chan struct{}), open: make(chan struct{})}
	t.Cleanup(g.release)
	return g
}

// watch makes the gate hold the polls of the lease sets rks.
func (g *pollGate) watch(rks ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, rk := range rks {
		g.seen[rk] = 0
	}
}

// sent returns the Acquire scripts sent for lease set rk.
func (g *pollGate) sent(rk string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seen[rk]
}

// release lets every poll go, now and later.
func (g *pollGate) release() { g.opening.Do(func() { close(g.open) }) }

func (g *pollGate) DialHook(next redis.DialHook) redis.DialHook { return next }

func (g *pollGate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (g *pollGate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		a := cmd.Args()
		if len(a) > 3 && a[0] == "evalsha" {
			sha, _ := a[1].(string)
			rk, _ := a[3].(string)
			g.mu.Lock()
			n, ok := g.seen[rk]
			if ok && redisinflight.SendsAcquire([]byte(sha)) {
				g.seen[rk] = n + 1
			} else {
				ok = false
			}
			g.mu.Unlock()
			if ok && n >= 1 {
				g.held.Add(1)
				select {
				case <-g.next:
				case <-g.open:
				}
				g.held.Add(-1)
				g.passed.Add(1)
			}
		}
		return next(ctx, cmd)
	}
}

type waited struct {
	s   *inflight.Slot
	err error
}

// wait runs l.Wait(ctx, key) in a goroutine; its outcome is sent on the
// returned channel.
func wait(ctx context.Context, l *redisinflight.Limiter, key string) <-chan waited {
	c := make(chan waited, 1)
	go func() {
		s, err := l.Wait(ctx, key)
		c <- waited{s, err}
	}()
	return c
}

// TestAttackWaitPollsTakeAcquireTokens: an attacker holding every slot of
// keys of its own (limit 1), with a caller waiting on each, makes the
// lines' heads ask Redis every PollInterval. Before, those polls took the
// tokens of MaxCalls (1 here) that Acquires need: while one poll was in
// flight (held by the test), an innocent client's Acquire of another key
// was shed: refused with ErrUnavailable under FailClosed (a 503 on a
// Redis that answers), admitted with no lease under FailOpen and
// FailLocal. Polls now have a budget of their own (Options.MaxPolls):
// the Acquire is answered by Redis. And a poll that finds that budget
// spent (the round trip of a head that gave up still out) is not decided
// by the failure mode: it waits, never admitted although its key is full.
func TestAttackWaitPollsTakeAcquireTokens(t *testing.T) {
	for _, mode := range []redisstore.FailureMode{redisstore.FailClosed, redisstore.FailOpen, redisstore.FailLocal} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			c := srv.Client(t)
			gate := newPollGate(t)
			c.AddHook(gate)
			l := newLimiter(t, c, 1, redisinflight.Options{MaxCalls: 1, Timeout: time.Minute, Lease: 6 * time.Minute,
				PollInterval: time.Millisecond, FailureMode: mode, LocalShare: 1})
			var shed atomic.Int64
			redisinflight.OnPollShed(l, func() { shed.Add(1) })
			bg := context.Background()
			for _, k := range []string{"a", "b"} { // the attacker's slots
				_, err := l.Acquire(bg, k)
				require.NoError(t, err)
				within.Until(t, "its round trip over", func() bool { return redisinflight.Outstanding(l) == 0 })
			}
			a, b := redisinflight.LeaseSet(l, "a"), redisinflight.LeaseSet(l, "b")
			gate.watch(a, b)
			actx, cancelA := context.WithCancel(bg)
			defer cancelA()
			aDone := wait(actx, l, "a")
			within.Until(t, "a's head polling, its first try over", func() bool {
				return gate.held.Load() == 1 && redisinflight.Outstanding(l) == 1
			})

			s, err := l.Acquire(bg, "innocent")
			require.NoError(t, err, "an innocent Acquire while a poll is in flight")
			n, err := c.ZCard(bg, redisinflight.LeaseSet(l, "innocent")).Result()
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "its lease is in Redis: decided by Redis, not by the failure mode")
			within.Until(t, "its round trip over", func() bool { return redisinflight.Outstanding(l) == 1 })
			_, err = l.Acquire(bg, "innocent")
			require.ErrorIs(t, err, inflight.ErrFull, "its key is full")
			require.NoError(t, s.Release(bg))
			within.Until(t, "their round trips over", func() bool { return redisinflight.Outstanding(l) == 1 })

			// a's caller gives up; its poll's round trip is still out.
			cancelA()
			r := within.Recv(t, aDone, "a's Wait")
			require.ErrorIs(t, r.err, context.Canceled)
			bctx, cancelB := context.WithCancel(bg)
			defer cancelB()
			bDone := wait(bctx, l, "b")
			within.Until(t, "b's poll finding the polls' budget spent", func() bool {
				return len(bDone) > 0 || shed.Load() > 0
			})
			require.Empty(t, bDone, "b's Wait goes on")
			cancelB()
			r = within.Recv(t, bDone, "b's Wait")
			assert.Nil(t, r.s, "b's key is full: no slot")
			require.ErrorIs(t, r.err, context.Canceled, "b waited until its caller gave up")
			assert.Zero(t, l.Waiting("a")+l.Waiting("b"), "the waiters left their lines")
			gate.release()
			within.Until(t, "no round trip outstanding", func() bool { return redisinflight.Outstanding(l) == 0 })
		})
	}
}

// TestAttackWaitersPollInTurn: an attacker's waiters on n keys of its
// own, each full, made n heads ask Redis every PollInterval, all at once:
// 20·n scripts a second on Redis at the default 50 ms, the load growing
// with the keys the attacker fills. Before, the n polls were all in
// flight together (6 here). Now the heads take turns, first come, first
// served: at most MaxPolls polls (max(1, MaxCalls/16), 1 here) per
// PollInterval, the others waiting, and each head polls in its turn.
func TestAttackWaitersPollInTurn(t *testing.T) {
	t.Parallel()
	const n = 6
	srv := redistest.Start(t)
	c := srv.Client(t)
	gate := newPollGate(t)
	c.AddHook(gate)
	l := newLimiter(t, c, 1, redisinflight.Options{MaxCalls: 16, Timeout: time.Minute, Lease: 6 * time.Minute, PollInterval: time.Millisecond})
	bg := context.Background()
	var rks []string
	for i := range n { // the attacker's slots
		k := string(rune('a' + i))
		_, err := l.Acquire(bg, k)
		require.NoError(t, err)
		rks = append(rks, redisinflight.LeaseSet(l, k))
	}
	gate.watch(rks...)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	var done []<-chan waited
	for i := range n {
		done = append(done, wait(ctx, l, string(rune('a'+i))))
	}
	steady := func() bool { return gate.held.Load()+int64(redisinflight.AwaitingTurn(l)) == n }
	within.Until(t, "every head polling or waiting its turn", steady)
	require.EqualValues(t, 1, gate.held.Load(), "polls in flight")

	for k := 1; k < n; k++ { // let the polls go one by one
		gate.next <- struct{}{}
		within.Until(t, "the next head's poll", func() bool { return gate.passed.Load() == int64(k) && steady() })
		require.EqualValues(t, 1, gate.held.Load(), "polls in flight")
	}
	total := 0
	for _, rk := range rks {
		require.GreaterOrEqual(t, gate.sent(rk), 2, "every head has polled in its turn (its first try, then a poll)")
		total += gate.sent(rk)
	}
	require.Equal(t, n+n, total, "n first tries, n-1 polls let go, one held")

	cancel()
	for _, d := range done {
		r := within.Recv(t, d, "a Wait")
		require.ErrorIs(t, r.err, context.Canceled)
	}
}
