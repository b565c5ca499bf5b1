package redisstore

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// combiner coalesces the decisions of a client that bounds its round trips
// by the context's deadline (ContextTimeoutEnabled) on the callers'
// goroutines, without pipeline workers: a decision made while fewer than
// Options.Pipelines such round trips are in flight, and none is waiting
// for its turn, is sent at once, alone; one made while they are joins the
// batch waiting for the next turn, whose first caller (its leader) sends
// it, on its own goroutine, as soon as a round trip in flight ends. (With
// one round trip at a time, the decisions of 8 callers went in batches of
// about 4, one after another, and left half of a 2-core machine idle:
// 0.56× ulule's decisions/s on a hot key, against 0.82× with 8 in flight,
// while 64 callers still go in batches.) No hand-off to a
// worker and back (two wake-ups that cost a decision more than its round
// trip on a fast link), and decisions arriving while round trips are out
// go together in the next (one script call deciding them all costs Redis
// far less than one each).
type combiner struct {
	mu      sync.Mutex
	flying  int           // combined round trips in flight, at most Options.Pipelines
	pending []*call       // the batch waiting for its turn (nil: none); its first call's caller sends it
	spare   [][]*call     // batches' slices, for reuse
	turn    chan struct{} // a combined round trip ended (capacity 1): wakes the pending batch's leader
}

// combine decides c in a combined round trip (see combiner); it reports
// false, having done nothing, when the batch waiting is full (MaxBatch):
// c then goes to a pipeline worker. completed and err are exec's.
func (s *Store) combine(ctx context.Context, c *call) (ok, completed bool, err error) {
	cb := &s.comb
	deadline := time.Now().Add(s.opts.Timeout)
	cb.mu.Lock()
	if cb.pending == nil && cb.flying < s.opts.Pipelines {
		cb.flying++
		cb.mu.Unlock()
		c.batch[0] = c
		completed, err = s.sendCombined(ctx, c, c.batch[:], deadline, false)
		return true, completed, err
	}
	if len(cb.pending) >= s.opts.MaxBatch {
		cb.mu.Unlock()
		return false, false, nil
	}
	lead := cb.pending == nil
	if lead {
		if n := len(cb.spare); n > 0 {
			cb.pending, cb.spare = cb.spare[n-1], cb.spare[:n-1]
		} else {
			cb.pending = make([]*call, 0, 8)
		}
	}
	cb.pending = append(cb.pending, c)
	cb.mu.Unlock()
	if lead {
		completed, err = s.lead(ctx, c, deadline)
		return true, completed, err
	}
	completed, err = s.follow(ctx, c, deadline)
	return true, completed, err
}

// lead waits for the turn of the batch c leads, until c's deadline, and
// sends it. A leader whose deadline passes first, or comes within two
// round trips when its turn comes, fails its whole batch without sending
// it (every other call in it joined later, with time left, but nobody
// else would send it): a stalled Redis.
func (s *Store) lead(ctx context.Context, c *call, deadline time.Time) (completed bool, err error) {
	cb := &s.comb
	t := pooledTimer(time.Until(deadline))
	defer releaseTimer(t)
	for {
		select {
		case <-cb.turn:
		case <-t.C:
			return true, s.abandon(errTimeout)
		case <-s.quit:
			return true, s.abandon(fmt.Errorf("redisstore: store closed: %w", ErrUnavailable))
		}
		cb.mu.Lock()
		if cb.flying < s.opts.Pipelines {
			if time.Until(deadline) < 2*time.Duration(s.rttNs.Load()) {
				// Too late for a round trip: sent, it would miss the
				// deadline and cost its connection.
				cb.mu.Unlock()
				return true, s.abandon(errTimeout)
			}
			batch := cb.pending
			cb.pending = nil
			cb.flying++
			cb.mu.Unlock()
			return s.sendCombined(ctx, c, batch, deadline, true)
		}
		cb.mu.Unlock()
	}
}

// abandon fails the pending batch with err, which its leader returns: each
// of its other callers is handed err, or has left already (its own
// deadline or context).
func (s *Store) abandon(err error) error {
	cb := &s.comb
	cb.mu.Lock()
	batch := cb.pending
	cb.pending = nil
	cb.mu.Unlock()
	if err == errTimeout {
		s.stats.timeouts.Add(1)
		s.br.Fault(errTimeout, false)
	}
	for _, c := range batch[1:] {
		c.err = err
		c.done <- struct{}{}
	}
	s.recycle(batch)
	return err
}

// recycle keeps batch's slice for another batch.
func (s *Store) recycle(batch []*call) {
	clear(batch)
	cb := &s.comb
	cb.mu.Lock()
	if len(cb.spare) < 4 {
		cb.spare = append(cb.spare, batch[:0])
	}
	cb.mu.Unlock()
}

// follow waits for c, sent in a batch another caller leads, until c's
// deadline or ctx ends.
func (s *Store) follow(ctx context.Context, c *call, deadline time.Time) (completed bool, err error) {
	t := pooledTimer(time.Until(deadline))
	defer releaseTimer(t)
	select {
	case <-c.done:
		return true, c.err
	case <-t.C:
		s.stats.timeouts.Add(1)
		s.br.Fault(errTimeout, false)
		return false, errTimeout
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// sendCombined sends batch, c's, on this goroutine, bounded by deadline
// (the client ends its round trip there: ContextTimeoutEnabled), then
// hands the turn on. A reply missing the deadline costs its connection
// (go-redis closes it), which is why a slow link goes to the pipeline
// workers instead (see exec). c alone keeps the caller's context (its
// values reach the client's hooks); a batch of several callers' decisions
// runs in the store's. pooled: batch is a slice of the combiner's.
func (s *Store) sendCombined(ctx context.Context, c *call, batch []*call, deadline time.Time, pooled bool) (completed bool, err error) {
	if pooled {
		ctx = s.ctx
	}
	dctx, cancel := context.WithDeadline(ctx, deadline)
	s.inflight.Add(1)
	s.lastSent.Store(nanotime())
	s.runIn(dctx, batch, nil, ctx)
	cancel()
	s.ended()
	cb := &s.comb
	cb.mu.Lock()
	cb.flying--
	cb.mu.Unlock()
	select {
	case cb.turn <- struct{}{}:
	default:
	}
	<-c.done
	if pooled {
		s.recycle(batch)
	}
	return true, c.err
}

// pooledTimer returns a timer of timerPool firing after d; releaseTimer
// stops it and puts it back.
func pooledTimer(d time.Duration) *time.Timer {
	t := timerPool.Get().(*time.Timer)
	t.Reset(d)
	return t
}

func releaseTimer(t *time.Timer) {
	t.Stop()
	timerPool.Put(t)
}
