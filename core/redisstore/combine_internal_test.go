package redisstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/race"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// tripHook counts the round trips carrying an FCALL, and the most of them
// in flight at once (not the others: a new connection's handshake, a
// FUNCTION LOAD).
type tripHook struct {
	trips, flying, most atomic.Int64
}

func (h *tripHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *tripHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() != "fcall" {
			return next(ctx, cmd)
		}
		defer h.enter()()
		return next(ctx, cmd)
	}
}

func (h *tripHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			if cmd.Name() == "fcall" {
				defer h.enter()()
				break
			}
		}
		return next(ctx, cmds)
	}
}

func (h *tripHook) enter() (leave func()) {
	h.trips.Add(1)
	n := h.flying.Add(1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
	return func() { h.flying.Add(-1) }
}

// combineStore returns a store over a client that bounds its round trips
// by the context (ContextTimeoutEnabled: decisions are combined on the
// callers' goroutines), the hook counting its round trips, and a limiter
// of the wide policy whose library is loaded.
func combineStore(t *testing.T, opts Options) (*Store, *core.Limiter, *tripHook) {
	t.Helper()
	srv := redistest.Start(t)
	c := srv.Client(t)
	h := &tripHook{}
	c.AddHook(h)
	if opts.Timeout == 0 {
		opts.Timeout = within.Bound // no deadline a loaded machine reaches, unless the test sets one
	}
	s, err := New(c, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.True(t, s.direct)
	p := core.MustPolicy("wide", core.Limit{Name: "w", Algorithm: core.GCRA{Rate: core.PerSecond(1e6), Burst: 1e6}})
	l, err := core.NewLimiter(p, core.WithStore(s))
	require.NoError(t, err)
	// Loads the library; a test of a short Timeout may see the first
	// tries miss it on a loaded machine.
	within.Until(t, "a first decision", func() bool {
		_, err := l.Allow(context.Background(), "warm")
		return err == nil
	})
	// A fast link, whatever the warm-up's round trip took on a loaded
	// machine (it loaded the library): decisions are combined, not
	// handed to the workers as on a slow link.
	s.rttNs.Store(int64(time.Microsecond))
	return s, l, h
}

// holdTurn makes the store's combiner act as if Options.Pipelines round
// trips were in flight (as many as it lets out at once) until the
// returned release is called, which ends them together.
func holdTurn(s *Store) (release func()) {
	s.comb.mu.Lock()
	s.comb.flying += s.opts.Pipelines
	s.comb.mu.Unlock()
	return func() {
		s.comb.mu.Lock()
		s.comb.flying -= s.opts.Pipelines
		s.comb.mu.Unlock()
		s.comb.turn <- struct{}{}
	}
}

// decideAll starts n decisions on one key and returns their errors, each
// as it ends.
func decideAll(l *core.Limiter, n int) <-chan error {
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := l.Allow(context.Background(), "k")
			errs <- err
		}()
	}
	return errs
}

// pendingCalls returns the number of calls waiting for the next turn.
func (s *Store) pendingCalls() int {
	s.comb.mu.Lock()
	defer s.comb.mu.Unlock()
	return len(s.comb.pending)
}

// TestCombineWhileInFlight: decisions made while a round trip is in
// flight wait for it and go together, in one round trip, sent by the
// first of them once it ends; each is decided once.
func TestCombineWhileInFlight(t *testing.T) {
	t.Parallel()
	s, l, h := combineStore(t, Options{})
	release := holdTurn(s)
	trips := h.trips.Load()
	const n = 10
	remaining := make(chan int64, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			r, err := l.Allow(context.Background(), "k")
			if !(err == nil && r.Allowed) {
				remaining <- -1
				return
			}
			remaining <- r.Remaining
		})
	}
	within.Until(t, "every decision waiting for the turn", func() bool { return s.pendingCalls() == n })
	require.Equal(t, trips, h.trips.Load(), "nothing sent while a round trip is in flight")
	release()
	within.Wait(t, &wg, "the decisions")
	require.Equal(t, trips+1, h.trips.Load(), "one round trip for all of them")
	close(remaining)
	seen := map[int64]bool{}
	for r := range remaining {
		require.GreaterOrEqual(t, r, int64(0), "allowed")
		require.False(t, seen[r], "each take counted once: remaining %d twice", r)
		seen[r] = true
	}
}

// TestCombineBounded: round trips of combined decisions are never more
// than Options.Pipelines in flight at once, however many callers decide.
func TestCombineBounded(t *testing.T) {
	t.Parallel()
	const pipelines = 3
	_, l, h := combineStore(t, Options{Pipelines: pipelines})
	h.most.Store(0)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := range 32 {
		wg.Go(func() {
			for i := range 40 {
				r, err := l.Allow(context.Background(), string(rune('a'+g%8))+string(rune('a'+i%4)))
				if err != nil || !r.Allowed {
					failed.Add(1)
				}
			}
		})
	}
	within.Wait(t, &wg, "the decisions")
	require.Zero(t, failed.Load())
	require.LessOrEqual(t, h.most.Load(), int64(pipelines))
}

// TestCombineLeaderDeadline: when no turn comes before the deadline (a
// stalled round trip in flight), the batch waiting fails as a whole, by
// its first caller's deadline, without being sent; the store decides
// again once the turn comes.
func TestCombineLeaderDeadline(t *testing.T) {
	t.Parallel()
	s, l, h := combineStore(t, Options{Timeout: 50 * time.Millisecond, Failures: 1 << 20})
	release := holdTurn(s)
	trips := h.trips.Load()
	const n = 8
	errs := decideAll(l, n)
	for range n {
		require.ErrorIs(t, within.Recv(t, errs, "a decision"), ErrUnavailable)
	}
	require.Equal(t, trips, h.trips.Load(), "nothing sent")
	require.Zero(t, s.pendingCalls())
	require.Positive(t, s.Stats().Timeouts)
	release()
	within.Until(t, "a decision by Redis again", func() bool {
		r, err := l.Allow(context.Background(), "k")
		return err == nil && r.Allowed
	})
}

// TestCombineCallerGone: a caller whose context ends while its decision
// waits for the turn leaves at once; the batch is sent all the same for
// the others.
func TestCombineCallerGone(t *testing.T) {
	t.Parallel()
	s, l, h := combineStore(t, Options{})
	release := holdTurn(s)
	trips := h.trips.Load()
	lead := make(chan error, 1)
	go func() {
		r, err := l.Allow(context.Background(), "k")
		if err == nil && !r.Allowed {
			err = errors.New("denied")
		}
		lead <- err
	}()
	within.Until(t, "the first decision waiting", func() bool { return s.pendingCalls() == 1 })
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error, 1)
	go func() {
		_, err := l.Allow(ctx, "k")
		gone <- err
	}()
	within.Until(t, "the second decision waiting", func() bool { return s.pendingCalls() == 2 })
	cancel()
	require.ErrorIs(t, within.Recv(t, gone, "the canceled decision"), context.Canceled)
	release()
	require.NoError(t, within.Recv(t, lead, "the first decision"))
	require.Equal(t, trips+1, h.trips.Load())
}

// TestCombineClose: decisions waiting for the turn when the store closes
// fail with ErrUnavailable.
func TestCombineClose(t *testing.T) {
	t.Parallel()
	s, l, _ := combineStore(t, Options{})
	holdTurn(s)
	const n = 4
	errs := decideAll(l, n)
	within.Until(t, "the decisions waiting", func() bool { return s.pendingCalls() == n })
	require.NoError(t, s.Close())
	for range n {
		require.ErrorIs(t, within.Recv(t, errs, "a decision"), ErrUnavailable)
	}
}

// TestCombineFullBatch: a caller finding the batch waiting full (MaxBatch)
// hands its decision to a pipeline worker.
func TestCombineFullBatch(t *testing.T) {
	t.Parallel()
	s, l, _ := combineStore(t, Options{MaxBatch: 2})
	release := holdTurn(s)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 2 {
		wg.Go(func() {
			if r, err := l.Allow(context.Background(), "k"); err != nil || !r.Allowed {
				failed.Add(1)
			}
		})
	}
	within.Until(t, "a full batch waiting", func() bool { return s.pendingCalls() == 2 })
	r, err := l.Allow(context.Background(), "k")
	require.NoError(t, err, "decided by a worker while the batch waits")
	require.True(t, r.Allowed)
	release()
	within.Wait(t, &wg, "the batch")
	require.Zero(t, failed.Load())
}

// TestCombineTooLate: a batch whose turn comes when its first caller's
// deadline is nearer than two round trips fails as a whole without being
// sent (it would miss the deadline and cost its connection).
func TestCombineTooLate(t *testing.T) {
	t.Parallel()
	s, l, h := combineStore(t, Options{Failures: 1 << 20})
	release := holdTurn(s)
	trips := h.trips.Load()
	const n = 4
	errs := decideAll(l, n)
	within.Until(t, "the decisions waiting", func() bool { return s.pendingCalls() == n })
	s.rttNs.Store(int64(s.opts.Timeout)) // the round trip now takes longer than the time left
	release()
	for range n {
		require.ErrorIs(t, within.Recv(t, errs, "a decision"), ErrUnavailable)
	}
	require.Equal(t, trips, h.trips.Load(), "nothing sent")
}

// TestPooledTimerAllocatesNothing: every decision waiting for its call
// takes a timer from the pool and gives it back, without allocating.
func TestPooledTimerAllocatesNothing(t *testing.T) {
	if race.Enabled {
		// The race detector's sync.Pool drops a quarter of what is put
		// back, on purpose: the count is the detector's, not the pool's.
		t.Skip("sync.Pool drops items at random under -race")
	}
	releaseTimer(pooledTimer(time.Hour)) // the pool's first
	require.Zero(t, testing.AllocsPerRun(100, func() {
		tm := pooledTimer(time.Hour)
		defer releaseTimer(tm)
	}))
}
