package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/internal/waitline"
)

// ErrWaitQueueFull is wrapped by the error of [Waiter.Wait] when the key's
// wait line, or all lines together, already hold their bound of waiters:
// the caller is refused at once instead of waiting.
var ErrWaitQueueFull = errors.New("core: wait queue full")

// ErrWaitExceedsDeadline is wrapped by the error of [Waiter.Wait] when the
// wait the limits ask for would end after the context's deadline, or
// never ends (the cost exceeds what a limit ever grants at once): the
// caller is told at once instead of waiting in vain. The Result returned
// with it is the denial.
var ErrWaitExceedsDeadline = errors.New("core: the wait would exceed the context's deadline")

// Defaults of [WaitOptions].
const (
	DefaultMaxWaiters = 64
	DefaultMaxWaiting = 1 << 16
)

// WaitOptions configures a [Waiter]. The zero WaitOptions is usable.
type WaitOptions struct {
	// MaxWaiters bounds the callers of one key waiting at once; 0 means
	// [DefaultMaxWaiters].
	MaxWaiters int
	// MaxWaiting bounds the callers of all keys waiting at once; 0 means
	// [DefaultMaxWaiting].
	MaxWaiting int
}

// Waiter makes the callers of a [Limiter] wait for their turn instead of
// being refused, for callers that would rather wait than fail (a job
// queue, an outgoing API client). It works with every algorithm and
// store. It is safe for concurrent use.
//
// # Fairness
//
// The callers of Wait for one key on one Waiter are served first come,
// first served: they wait in a line, and only its head asks the limiter;
// when denied it sleeps the denial's RetryAfter (the exact wait after
// which the same request passes, when nothing else takes capacity
// meanwhile) and asks again, keeping its place, until it is admitted or
// its context ends; then the next caller becomes the head. So a caller is
// never overtaken by a later caller of the same Waiter and key, and a
// large cost at the head holds back smaller ones behind it (no
// reordering).
//
// Nothing else is ordered: callers of the Limiter's Allow or AllowN, of
// another Waiter of the same Limiter, and other processes sharing a Redis
// store are not in the line and may take the capacity the head waits for
// (it then waits again). Across processes there is no ordering and no
// bound on how often a head can be overtaken; give each process a Waiter
// and its share of the traffic.
type Waiter struct {
	l    *Limiter
	line *waitline.Lines
}

// NewWaiter returns a Waiter for l. It refuses a nil or zero Limiter and
// negative options with an error wrapping [ErrInvalidConfig].
func NewWaiter(l *Limiter, opts WaitOptions) (*Waiter, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	if opts.MaxWaiters < 0 || opts.MaxWaiting < 0 {
		return nil, fmt.Errorf("core: negative WaitOptions: %w", ErrInvalidConfig)
	}
	if opts.MaxWaiters == 0 {
		opts.MaxWaiters = DefaultMaxWaiters
	}
	if opts.MaxWaiting == 0 {
		opts.MaxWaiting = DefaultMaxWaiting
	}
	return &Waiter{l: l, line: waitline.New(opts.MaxWaiters, opts.MaxWaiting, ErrWaitQueueFull)}, nil
}

// Wait takes one unit for key, waiting for it. It is WaitN(ctx, key, 1).
func (w *Waiter) Wait(ctx context.Context, key string) (Result, error) {
	return w.WaitN(ctx, key, 1)
}

// WaitN takes cost units for key, waiting until every limit admits them
// and then out any shaping delay (LeakyBucket's Delay), and returns the
// admitting decision (refundable as any other). It fails:
//
//   - at once, with an error wrapping [ErrWaitQueueFull], when the key's
//     line is full, or all lines are and the key has waiters or the
//     limits deny it at once (see [WaitOptions]): waiters of other keys
//     never refuse a take the limits admit at once;
//   - with ctx's error when ctx ends first (a shaping delay cut short is
//     refunded);
//   - with the denial and an error wrapping [ErrWaitExceedsDeadline] as
//     soon as a denial's RetryAfter would end after ctx's deadline, or is
//     [Never]; a caller that finds others of its key waiting ahead of it
//     peeks ([Limiter.Peek], one more call of the store) before it waits
//     in line, and is told so at once, with the peek's denial, rather
//     than when it becomes the head or its deadline passes;
//   - with a zero Result and an error wrapping [ErrWaitExceedsDeadline]
//     when an admission's shaping delay would end after ctx's deadline
//     (the admission is refunded: there is no denial to report);
//   - with the limiter's error (a store fault);
//   - with an error wrapping [ErrInvalidConfig] for a nil or zero Waiter
//     (not made by [NewWaiter]).
//
// A waiter holds no goroutine; the head of a line holds one timer. See
// [Waiter] for the order in which waiters are served.
func (w *Waiter) WaitN(ctx context.Context, key string, cost int64) (Result, error) {
	if w == nil || w.line == nil {
		return Result{}, errZeroWaiter
	}
	if cost < 1 {
		return Result{}, fmt.Errorf("core: cost %d: %w", cost, ErrInvalidCost)
	}
	turn, res, err := w.await(ctx, key, cost)
	switch {
	case errors.Is(err, ErrWaitQueueFull) && w.line.Len(key) == 0:
		// The bound of all lines refused it, yet nobody waits for its
		// key: a take the limits admit at once needs no place in line
		// (waiters of other keys, a flood's, shut no key out that need
		// not wait).
		if terr := w.l.Take(ctx, key, cost, &res); terr != nil {
			return Result{}, terr
		}
		if !res.Allowed {
			return Result{}, err
		}
	case err != nil:
		return res, err
	default:
		defer turn.Leave()
		for {
			if err := w.l.Take(ctx, key, cost, &res); err != nil {
				return Result{}, err
			}
			if res.Allowed {
				break
			}
			if err := sleep(ctx, res.RetryAfter); err != nil {
				if errors.Is(err, ErrWaitExceedsDeadline) {
					return res, err
				}
				return Result{}, err
			}
		}
		turn.Leave() // the next waiter may take its turn while this one's delay runs
	}
	if res.Delay > 0 {
		if err := sleep(ctx, res.Delay); err != nil {
			_, _ = w.l.Refund(context.WithoutCancel(ctx), key, res)
			return Result{}, err
		}
	}
	return res, nil
}

// await joins key's line and waits until the caller is its head, as
// waitline's Await does. A caller that finds others ahead of it peeks at
// cost first: when no wait admits it (RetryAfter [Never]), or not before
// ctx's deadline even were it the head now (what the callers ahead take
// only delays it further), it leaves the line at once, returning the
// peek's denial and an error wrapping [ErrWaitExceedsDeadline], instead of
// holding its place until it is the head or its deadline passes. A failed
// peek is ignored: the head's take reports the fault.
func (w *Waiter) await(ctx context.Context, key string, cost int64) (*waitline.Turn, Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, Result{}, err
	}
	turn, err := w.line.Join(key)
	if err != nil {
		return nil, Result{}, err
	}
	select {
	case <-turn.Ready():
		return turn, Result{}, nil
	default:
	}
	// The peek calls the store: should it panic (a caller's recover, or
	// net/http's, serving on), the turn leaves the line as the caller
	// unwinds, or every later caller of key would wait behind it for ever.
	peeked := false
	defer func() {
		if !peeked {
			turn.Leave()
		}
	}()
	res, err := w.l.Peek(ctx, key, cost)
	peeked = true
	if err == nil && !res.Allowed {
		if err := beyond(ctx, res.RetryAfter); err != nil {
			turn.Leave()
			return nil, res, err
		}
	}
	select {
	case <-turn.Ready():
		return turn, Result{}, nil
	case <-ctx.Done():
		turn.Leave()
		return nil, Result{}, ctx.Err()
	}
}

// beyond returns an error wrapping ErrWaitExceedsDeadline when a wait of
// d never ends ([Never]) or would end after ctx's deadline, nil otherwise.
func beyond(ctx context.Context, d time.Duration) error {
	if d == Never {
		return fmt.Errorf("core: the request can never pass: %w", ErrWaitExceedsDeadline)
	}
	d = max(d, time.Nanosecond)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return fmt.Errorf("core: a wait of %v: %w", d, ErrWaitExceedsDeadline)
	}
	return nil
}

// sleep waits d, or fails at once with ErrWaitExceedsDeadline when d
// would end after ctx's deadline (see beyond), or with ctx's error when
// it ends first.
func sleep(ctx context.Context, d time.Duration) error {
	if err := beyond(ctx, d); err != nil {
		return err
	}
	t := time.NewTimer(max(d, time.Nanosecond))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Waiting returns the callers waiting in key's line.
func (w *Waiter) Waiting(key string) int {
	if w == nil || w.line == nil {
		return 0
	}
	return w.line.Len(key)
}

// errZeroWaiter is returned by the methods of a nil or zero Waiter.
var errZeroWaiter = fmt.Errorf("core: nil or zero Waiter (make it with NewWaiter): %w", ErrInvalidConfig)
