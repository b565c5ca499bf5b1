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

// TestAttackFailLocalRacingAcquiresBothRefused: under FailLocal (limit 2,
// LocalShare 1) with one slot of the key held in Redis and Redis down,
// one of two racing Acquires must be admitted. Before, each took a local
// slot and only then counted, so that each could count the other's slot,
// which the other was about to give back: both refused, 1 request in
// flight where the limit allowed 2 (a window no run of 3,000 rounds
// reproduced; here the steps are set in that order). Now a local slot is
// taken only if, counted under one lock with the others, there is room.
func TestAttackFailLocalRacingAcquiresBothRefused(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	proxy, pc := proxied(t, srv)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, pc, 2, redisinflight.Options{Clock: clk, Lease: time.Hour, FailureMode: redisstore.FailLocal, LocalShare: 1})
	ctx := context.Background()
	held, err := l.Acquire(ctx, "k")
	require.NoError(t, err, "one slot held in Redis")
	proxy.Refuse(true)
	proxy.Drop()

	redisinflight.OnLocalStep(l, func(ctx context.Context, step string) {
		if g, ok := ctx.Value(gateKey{}).(*gate); ok {
			g.at <- step
			<-g.proceed
		}
	})
	x, y := newGate(), newGate()
	x.start(l)
	x.next(t) // x holds a local slot
	y.start(l)
	y.next(t) // so does y, or it is refused at once
	for !x.over || !y.over {
		x.step(t)
		y.step(t)
	}
	admitted := 0
	for _, g := range []*gate{x, y} {
		if g.got.err == nil {
			admitted++
			require.NoError(t, g.got.s.Release(ctx))
		} else {
			require.ErrorIs(t, g.got.err, inflight.ErrFull)
		}
	}
	require.Equal(t, 1, admitted, "limit 2, one slot held: one of the two is admitted")
	require.Error(t, held.Release(ctx), "Redis down: the release is remembered")
}

type gateKey struct{}

// gate steps one Acquire through the hook of OnLocalStep.
type gate struct {
	at      chan string
	proceed chan struct{}
	done    chan got
	got     got
	over    bool
}

type got struct {
	s   *inflight.Slot
	err error
}

func newGate() *gate {
	return &gate{at: make(chan string), proceed: make(chan struct{}), done: make(chan got, 1)}
}

// start runs the Acquire of "k".
func (g *gate) start(l *redisinflight.Limiter) {
	ctx := context.WithValue(context.Background(), gateKey{}, g)
	go func() {
		s, err := l.Acquire(ctx, "k")
		g.done <- got{s, err}
	}()
}

// next waits for the Acquire's next step, or its end.
func (g *gate) next(t *testing.T) {
	t.Helper()
	select {
	case <-g.at:
	case g.got = <-g.done:
		g.over = true
	case <-time.After(within.Bound):
		t.Fatal("the Acquire neither stepped nor returned")
	}
}

// step lets the Acquire on to its next step, unless it is over.
func (g *gate) step(t *testing.T) {
	t.Helper()
	if !g.over {
		g.proceed <- struct{}{}
		g.next(t)
	}
}
