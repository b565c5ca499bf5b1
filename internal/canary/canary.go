// Package canary tells a test whether the machine kept time while it ran:
// a goroutine sleeps 1 ms again and again and records how late it woke
// up. On a machine so loaded that the scheduler alone is late by more
// than a timing claim's margin, the claim is logged, not asserted; the
// mechanism behind it is asserted always. It is internal to floodgate.
package canary

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// Canary measures how late 1 ms sleeps wake up from Start to Kept.
type Canary struct {
	stop  chan struct{}
	done  chan struct{}
	worst atomic.Int64
}

// Start starts a canary.
func Start() *Canary {
	c := &Canary{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			select {
			case <-c.stop:
				return
			default:
			}
			start := time.Now()
			time.Sleep(time.Millisecond)
			if late := int64(time.Since(start) - time.Millisecond); late > c.worst.Load() {
				c.worst.Store(late)
			}
		}
	}()
	return c
}

// Kept stops c and reports whether no sleep woke up more than max late;
// when one did, it logs that timing is not asserted.
func (c *Canary) Kept(t testing.TB, max time.Duration) bool {
	t.Helper()
	close(c.stop)
	<-c.done
	if late := time.Duration(c.worst.Load()); late > max {
		t.Logf("the machine is overloaded (a 1 ms sleep woke up %v late, over %v): timing figures are logged, not asserted", late, max)
		return false
	}
	return true
}

// Rounds runs round, each time under a canary of max, until a round
// returns nil (its timing claims held, however loaded the machine), at
// most 3 times. A round checks its mechanism with the test's assertions
// and returns its timing claims' failure as an error. A fault test's path
// has several hops (caller, pool, proxy, redis-server and back), each of
// which a loaded machine may delay by more than a 1 ms sleep shows, now
// and then by a whole timeout: one slow round is not yet proof of a
// fault. The test fails when every round failed and at least one of them
// ran while the machine kept up; when none did, the failures are logged.
// A mechanism that misses its claims by design fails every round.
func Rounds(t testing.TB, max time.Duration, round func() error) {
	t.Helper()
	var kept []error
	for i := 1; i <= 3; i++ {
		c := Start()
		err := round()
		keptUp := c.Kept(t, max)
		if err == nil {
			return
		}
		if keptUp {
			kept = append(kept, err)
		}
		t.Logf("round %d: %v", i, err)
	}
	if len(kept) > 0 {
		t.Errorf("the timing claims failed in every round, %d of them on a machine that kept up: %v", len(kept), errors.Join(kept...))
	}
}
