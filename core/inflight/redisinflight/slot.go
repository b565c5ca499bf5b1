package redisinflight

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
)

// lease is a slot held in Redis: member of the sorted set rk.
type lease struct {
	l           *Limiter
	key, rk, id string

	mu    sync.Mutex
	timer renewTimer // AutoRenew's
	done  bool
}

// renewTimer is AutoRenew's timer of one lease: a *time.Timer, or a
// test's (see Limiter.renewAfter).
type renewTimer interface {
	Reset(time.Duration) bool
	Stop() bool
}

// afterFunc is time.AfterFunc as a renewTimer's maker.
func afterFunc(d time.Duration, f func()) renewTimer { return time.AfterFunc(d, f) }

// slot returns the Slot of a lease just taken.
func (l *Limiter) slot(key, rk, member string) *inflight.Slot {
	ls := &lease{l: l, key: key, rk: rk, id: member}
	if l.opts.AutoRenew {
		ls.mu.Lock() // the timer may fire before the assignment
		ls.timer = l.renewAfter(l.opts.Lease/3, ls.autoRenew)
		ls.mu.Unlock()
	}
	return inflight.NewSlot(ls.release, ls.renew)
}

// release removes the lease, once (inflight.Slot sees to that).
func (ls *lease) release(ctx context.Context) error {
	ls.mu.Lock()
	ls.done = true
	if ls.timer != nil {
		ls.timer.Stop()
	}
	ls.mu.Unlock()
	defer ls.l.wake(ls.key)
	_, err := ls.l.call(ctx, func(ctx context.Context) (any, error) {
		return ls.l.client.ZRem(ctx, ls.rk, ls.id).Result()
	}, nil)
	if err != nil {
		return fmt.Errorf("redisinflight: release (the lease ends by itself): %w", unavailable(err))
	}
	return nil
}

// renew extends the lease by Options.Lease from now.
func (ls *lease) renew(ctx context.Context) error {
	l := ls.l
	v, err := l.call(ctx, func(ctx context.Context) (any, error) {
		return renewScript.Run(ctx, l.client, []string{ls.rk}, ls.id, l.leaseUS, l.now()).Result()
	}, nil)
	switch {
	case err != nil:
		return fmt.Errorf("redisinflight: renew: %w", unavailable(err))
	case v != int64(1):
		return ErrLeaseLost
	}
	return nil
}

// autoRenew renews the lease and schedules the next renewal, until the
// slot is released or its lease is lost. A renewal that cannot reach
// Redis is tried again at the next period.
func (ls *lease) autoRenew() {
	err := ls.renew(context.Background())
	if err != nil && ls.l.opts.OnError != nil {
		ls.l.opts.OnError(err)
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if !ls.done && err != ErrLeaseLost {
		ls.timer.Reset(ls.l.opts.Lease / 3)
	}
}

// unavailable wraps err, an error of a round trip, in
// redisstore.ErrUnavailable unless it says so already or is the caller's
// own end.
func unavailable(err error) error {
	if errors.Is(err, redisstore.ErrUnavailable) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w: %w", redisstore.ErrUnavailable, err)
}
