package core

import (
	"context"
	"fmt"

	"github.com/floodgate-go/floodgate/internal/isnil"
)

// Limiter decides requests of one [Policy] against a [Store] on a [Clock].
// It is safe for concurrent use.
type Limiter struct {
	policy *Policy
	table  Table
	mem    *memTable // the table when it is the in-memory store's: called directly
	clock  Clock
}

type limiterConfig struct {
	store Store
	clock Clock
}

// Option configures a [Limiter].
type Option func(*limiterConfig)

// WithStore makes the limiter keep its state in s. Without it, each limiter
// has its own [MemoryStore] with default options.
func WithStore(s Store) Option { return func(c *limiterConfig) { c.store = s } }

// WithClock makes the limiter read time from c. Without it (or with nil),
// it reads the system clock.
func WithClock(c Clock) Option { return func(cfg *limiterConfig) { cfg.clock = c } }

// NewLimiter returns a limiter for p. It refuses, with an error wrapping
// [ErrInvalidConfig], a nil or zero Policy (one not made by [NewPolicy]), a
// nil Option, and a Store or Clock that is a typed nil such as
// (*MemoryStore)(nil).
func NewLimiter(p *Policy, opts ...Option) (*Limiter, error) {
	if p == nil || len(p.limits) == 0 {
		return nil, fmt.Errorf("core: nil or zero policy (make it with NewPolicy): %w", ErrInvalidConfig)
	}
	var cfg limiterConfig
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("core: option %d is nil: %w", i, ErrInvalidConfig)
		}
		o(&cfg)
	}
	if cfg.store != nil && isnil.Value(cfg.store) {
		return nil, fmt.Errorf("core: WithStore: nil %T: %w", cfg.store, ErrInvalidConfig)
	}
	if cfg.clock != nil && isnil.Value(cfg.clock) {
		return nil, fmt.Errorf("core: WithClock: nil %T: %w", cfg.clock, ErrInvalidConfig)
	}
	if cfg.store == nil {
		ms, err := NewMemoryStore(MemoryOptions{})
		if err != nil {
			return nil, err
		}
		cfg.store = ms
	}
	t, err := cfg.store.Bind(p)
	if err != nil {
		return nil, fmt.Errorf("core: binding policy %q: %w", p.name, err)
	}
	l := &Limiter{policy: p, table: t, clock: cfg.clock}
	l.mem, _ = t.(*memTable)
	return l, nil
}

// Policy returns the limiter's policy.
func (l *Limiter) Policy() *Policy { return l.policy }

func (l *Limiter) now() int64 {
	if l.clock == nil {
		return systemNow()
	}
	return l.clock.Now().UnixNano()
}

// do applies req (its Now set here) into res.
func (l *Limiter) do(ctx context.Context, req Request, res *Result) error {
	if l == nil || l.table == nil { // a nil or zero Limiter, not made by NewLimiter
		*res = Result{}
		return fmt.Errorf("core: nil or zero Limiter (make it with NewLimiter): %w", ErrInvalidConfig)
	}
	req.Now = l.now()
	if req.Now < 0 || req.Now > maxInstant {
		*res = Result{}
		return fmt.Errorf("core: now %d ns: %w", req.Now, ErrClock)
	}
	if l.mem != nil {
		l.mem.do(&req, res)
		return nil
	}
	r, err := l.table.Do(ctx, req)
	*res = r
	return err
}

// Allow takes one unit for key. It is AllowN(ctx, key, 1).
func (l *Limiter) Allow(ctx context.Context, key string) (res Result, err error) {
	err = l.Take(ctx, key, 1, &res)
	return res, err
}

// AllowN takes cost units for key if every limit of the policy admits them,
// and reports the decision. A denial consumes nothing.
func (l *Limiter) AllowN(ctx context.Context, key string, cost int64) (res Result, err error) {
	err = l.Take(ctx, key, cost, &res)
	return res, err
}

// Take is [Limiter.AllowN] writing the decision into res, for callers that
// reuse a Result: the in-memory store then copies nothing.
func (l *Limiter) Take(ctx context.Context, key string, cost int64, res *Result) error {
	if cost < 1 {
		*res = Result{}
		return fmt.Errorf("core: cost %d: %w", cost, ErrInvalidCost)
	}
	return l.do(ctx, Request{Op: OpTake, Key: key, Cost: cost}, res)
}

// Peek reports what AllowN would decide for cost, consuming nothing.
func (l *Limiter) Peek(ctx context.Context, key string, cost int64) (Result, error) {
	if cost < 1 {
		return Result{}, fmt.Errorf("core: cost %d: %w", cost, ErrInvalidCost)
	}
	var res Result
	err := l.do(ctx, Request{Op: OpPeek, Key: key, Cost: cost}, &res)
	return res, err
}

// Refund gives back what taken consumed, as far as the limits still hold it
// (a fixed window that has ended no longer counts the cost, so nothing is
// given back to the next one). It returns what a peek of cost 1 reports
// afterwards, or [ErrNotTaken] when taken consumed nothing.
func (l *Limiter) Refund(ctx context.Context, key string, taken Result) (Result, error) {
	if !taken.taken {
		return Result{}, ErrNotTaken
	}
	var res Result
	err := l.do(ctx, Request{Op: OpRefund, Key: key, Cost: taken.Cost, Taken: taken.at}, &res)
	return res, err
}

// Reset forgets key: its next request is decided as a first one.
func (l *Limiter) Reset(ctx context.Context, key string) error {
	var res Result
	return l.do(ctx, Request{Op: OpReset, Key: key}, &res)
}
