package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/require"
)

// stallStore is a Store whose table admits every take (holding it 10 s)
// and whose first refund waits, inside the store call, until release is
// closed (a Redis call stalled until its timeout).
type stallStore struct {
	entered, release chan struct{}
	refunds          int
}

func (s *stallStore) Bind(*core.Policy) (store.Table, error) { return s, nil }

func (s *stallStore) Do(ctx context.Context, req store.Request) (store.Decision, error) {
	d := store.Decision{At: req.Now, Outcomes: [store.MaxLimits]store.Outcome{{Allowed: true, Remaining: 1, ResetAfter: 10 * time.Second}}}
	switch req.Op {
	case store.OpTake:
		d.Taken = true
	case store.OpRefund:
		if s.refunds++; s.refunds == 1 {
			close(s.entered)
			<-s.release
		}
	}
	return d, nil
}

// TestRefundWaitingForTheLogHonoursItsContext: the refunds of the span
// algorithms of one shard of the refund log (1/64 of the keys on this
// store) are made
// one at a time, the shard locked across the store call. While one
// refund's store call stalls, another refund of the shard, whose context
// is already cancelled, waited for the lock regardless (behind every
// refund queued before it, each as long as its store call): it returns
// the context's error at once, having spent nothing, so that it can be
// made again.
func TestRefundWaitingForTheLogHonoursItsContext(t *testing.T) {
	t.Parallel()
	s := &stallStore{entered: make(chan struct{}), release: make(chan struct{})}
	p := core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 10}})
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(coretest.NewClock(t0)))
	require.NoError(t, err)
	ctx := context.Background()
	a, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	b, err := l.Allow(ctx, "k")
	require.NoError(t, err)

	first := make(chan error, 1)
	go func() {
		_, err := l.Refund(ctx, "k", a)
		first <- err
	}()
	<-s.entered // the first refund holds the shard, inside its store call

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	second := make(chan error, 1)
	go func() {
		_, err := l.Refund(cancelled, "k", b)
		second <- err
	}()
	select {
	case err := <-second:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		close(s.release)
		<-second
		t.Fatal("a refund with a cancelled context waited for another refund's store call")
	}
	close(s.release)
	require.NoError(t, <-first)
	_, err = l.Refund(ctx, "k", b) // not spent: made again, now
	require.NoError(t, err)
}
