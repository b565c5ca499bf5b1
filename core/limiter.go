package core

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/isnil"
)

// Limiter decides requests of one [Policy] against a [Store] on a [Clock].
// It is safe for concurrent use.
type Limiter struct {
	cur   atomic.Pointer[binding] // the policy and table deciding (see reload.go)
	setMu sync.Mutex              // serialises SetPolicy
	clock Clock

	seed   maphash.Seed  // hashes keys into Results, for tables other than mem
	seq    atomic.Uint64 // decision ids, for tables other than mem
	nonce  uint64        // random: with a decision id, its refund's store.Request.RefundID
	window int64         // how long after a decision its refund is accepted
	ledger *refundLedger // the decisions already refunded
	resets resetLog      // the keys reset within a refund window
	lowers *lowerLog     // the refunds that may have moved later takes (see lowerlog.go)

	obs  Observer // nil: none (see observe.go)
	kind string   // the store's kind, for obs
	// override: the limiter of a policy an Overrides provider gave, for
	// obs (Decision.Override)
	override bool

	store Store         // the store, for binding shadow limits (see shadow.go)
	top   *heavyHitters // nil: none (see heavyhitters.go)
	post  bool          // obs or top is set: a take calls after (as it does when the binding has shadow limits)
}

type limiterConfig struct {
	store        Store
	storeGiven   bool // WithStore was given, nil too
	clock        Clock
	ledger       int
	refundWindow time.Duration
	observer     Observer
	top          *TopKeysOptions
	override     bool // an Overrides' limiter of a provider's policy (asOverride)
}

// asOverride marks the limiter of a policy an Overrides provider gave: its
// decisions are reported with Decision.Override.
func asOverride(c *limiterConfig) { c.override = true }

// Option configures a [Limiter].
type Option func(*limiterConfig)

// WithStore makes the limiter keep its state in s. Without it, each limiter
// has its own [MemoryStore] with default options. A nil s is refused by
// [NewLimiter]: a store variable left nil (a Redis store built only on some
// path) would otherwise give each process of a fleet a memory store of its
// own, and the fleet N times the limit.
func WithStore(s Store) Option {
	return func(c *limiterConfig) { c.store, c.storeGiven = s, true }
}

// WithClock makes the limiter read time from c. Without it (or with nil),
// it reads the system clock.
func WithClock(c Clock) Option { return func(cfg *limiterConfig) { cfg.clock = c } }

// WithRefundLedger sets how many refunded decisions the limiter remembers
// at most (capacity, default [DefaultRefundLedger]) and how long after a
// decision its refund is accepted (window, default [DefaultRefundWindow]).
//
// A decision may be refunded once, within window: a second refund of it
// (through any copy of its Result) fails with [ErrRefunded], a later one
// with [ErrRefundExpired], and either changes nothing. To tell, the limiter
// remembers each refunded decision until its window has passed, or until
// the decision no longer holds anything in the limits' state if that is
// sooner; so window × the refund rate must stay below capacity. A refund
// that finds capacity entries still remembered is refused with
// [ErrRefundLedgerFull]: the cost stays taken (the limiter denies more, it
// never admits more). An entry takes about 90 bytes, allocated only as
// refunds are made. Zero values keep the defaults.
func WithRefundLedger(capacity int, window time.Duration) Option {
	return func(c *limiterConfig) { c.ledger, c.refundWindow = capacity, window }
}

// NewLimiter returns a limiter for p. It refuses, with an error wrapping
// [ErrInvalidConfig], a nil or zero Policy (one not made by [NewPolicy]), a
// nil Option, a nil Store given to [WithStore], and a Store or Clock that
// is a typed nil such as (*MemoryStore)(nil).
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
	if cfg.storeGiven && cfg.store == nil {
		return nil, fmt.Errorf("core: WithStore(nil): leave the option out for a memory store of the limiter's own: %w", ErrInvalidConfig)
	}
	if cfg.store != nil && isnil.Value(cfg.store) {
		return nil, fmt.Errorf("core: WithStore: nil %T: %w", cfg.store, ErrInvalidConfig)
	}
	if cfg.clock != nil && isnil.Value(cfg.clock) {
		return nil, fmt.Errorf("core: WithClock: nil %T: %w", cfg.clock, ErrInvalidConfig)
	}
	if _, ok := cfg.clock.(systemClock); ok {
		// The default clock, given explicitly (as the local-first store's
		// documentation asks): read directly, as when none is given.
		cfg.clock = nil
	}
	if cfg.observer != nil && isnil.Value(cfg.observer) {
		return nil, fmt.Errorf("core: WithObserver: nil %T: %w", cfg.observer, ErrInvalidConfig)
	}
	if cfg.ledger < 0 || cfg.refundWindow < 0 {
		return nil, fmt.Errorf("core: refund ledger capacity %d, window %v: %w", cfg.ledger, cfg.refundWindow, ErrInvalidConfig)
	}
	if cfg.ledger == 0 {
		cfg.ledger = DefaultRefundLedger
	}
	if cfg.refundWindow == 0 {
		cfg.refundWindow = DefaultRefundWindow
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
	l := &Limiter{
		clock: cfg.clock, seed: maphash.MakeSeed(),
		window: int64(cfg.refundWindow), ledger: newRefundLedger(cfg.ledger),
		nonce: rand.Uint64() | 1, // never zero: a zero RefundID names nothing
		obs:   cfg.observer, kind: storeKind(cfg.store), override: cfg.override,
	}
	l.store = cfg.store
	nb := newBinding(p, t, nil)
	l.lowers = newLowerLog(cfg.ledger, nb.mem)
	if nb.shadow, err = l.bindShadows(p, nil); err != nil {
		return nil, fmt.Errorf("core: binding policy %q: %w", p.name, err)
	}
	l.cur.Store(nb)
	if cfg.top != nil {
		if l.top, err = newHeavyHitters(*cfg.top); err != nil {
			return nil, err
		}
	}
	l.post = l.obs != nil || l.top != nil
	return l, nil
}

// errZeroLimiter is returned by every method of a nil or zero Limiter.
var errZeroLimiter = fmt.Errorf("core: nil or zero Limiter (make it with NewLimiter): %w", ErrInvalidConfig)

// Policy returns the limiter's policy: the one it was made with, or the
// one [Limiter.SetPolicy] installed last (a copy of the policy given: the
// same name and limits, a pointer of its own).
func (l *Limiter) Policy() *Policy {
	if l == nil {
		return nil
	}
	if b := l.cur.Load(); b != nil {
		return b.policy
	}
	return nil // a zero Limiter
}

func (l *Limiter) now() int64 {
	if l.clock == nil {
		return systemNow()
	}
	return clockNow(l.clock)
}

// do applies req (its Now set here) into res. epoch is, for a refund on
// the in-memory store, the refunded Result's epoch (see memTable.do).
func (l *Limiter) do(ctx context.Context, req store.Request, epoch uint64, res *Result) error {
	if err := l.check(); err != nil {
		*res = Result{}
		return err
	}
	return l.doOn(ctx, l.cur.Load(), req, epoch, res)
}

// doOn is do on the binding b: the one a refund's holds were read for.
func (l *Limiter) doOn(ctx context.Context, b *binding, req store.Request, epoch uint64, res *Result) error {
	res.shadowSet, res.shadowDenied = 0, 0
	req.Now = l.now()
	if req.Now < 0 || req.Now > maxInstant {
		*res = Result{}
		return fmt.Errorf("core: now %d ns: %w", req.Now, ErrClock)
	}
	if b.mem != nil {
		b.mem.do(&req, epoch, res) // names a taken decision (id, kh) itself
		res.owner, res.source = l, SourceStore
		return nil
	}
	var kh, mark uint64 // the key's hash (keyHash, b.mem being nil), and
	if req.Op == store.OpTake {
		kh = maphash.String(l.seed, req.Key)
		if b.policy.spans {
			// the take's position in the refund log, read before the
			// take is decided (see lowerLog)
			mark = l.lowers.shard(kh).seq.Load() + 1
		}
	}
	d, err := b.table.Do(ctx, req)
	if err != nil || req.Op == store.OpReset {
		*res = Result{}
		return err
	}
	b.policy.resultOf(&req, &d, res)
	if res.taken {
		if req.Op != store.OpTake {
			kh = maphash.String(l.seed, req.Key) // (only takes take: not expected)
		}
		// epoch is the in-memory store's shard epoch otherwise: here, the
		// take's position in the refund log.
		res.id, res.kh, res.owner, res.epoch = l.seq.Add(1), kh, l, mark
	}
	return nil
}

// check refuses a nil or zero Limiter, one not made by NewLimiter.
func (l *Limiter) check() error {
	if l == nil || l.cur.Load() == nil {
		return errZeroLimiter
	}
	return nil
}

// keyHash is the hash of key a taken Result records.
func (l *Limiter) keyHash(key string) uint64 {
	if b := l.cur.Load(); b.mem != nil {
		return b.mem.hash(key) // every binding of a limiter hashes alike
	}
	return maphash.String(l.seed, key)
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
	var b *binding
	if l != nil {
		b = l.cur.Load()
	}
	if b != nil && b.mem != nil && cost >= 1 && l.takeMem(ctx, b, key, nil, b.mem.hash(key), cost, res) {
		return nil
	}
	if b != nil && (l.post || b.shadow != nil) {
		return l.takeObserved(ctx, b, key, cost, res)
	}
	if cost < 1 {
		*res = Result{}
		return fmt.Errorf("core: cost %d: %w", cost, ErrInvalidCost)
	}
	if b == nil {
		*res = Result{}
		return errZeroLimiter
	}
	if err := l.doOn(ctx, b, store.Request{Op: store.OpTake, Key: key, Cost: cost}, 0, res); err != nil {
		return err
	}
	l.capDelay(ctx, key, res)
	return nil
}

// Peek reports what AllowN would decide for cost, consuming nothing: every
// limit's state ([Result.Limits], and [Result.ShadowLimits] for shadow
// limits) for a cost of 1 is an inspection of key. Under [WithMaxDelay]
// it reports what a take under it decides: an admission delayed longer
// is a denial, and a denial waits until the request is admitted within
// the delay.
func (l *Limiter) Peek(ctx context.Context, key string, cost int64) (Result, error) {
	if cost < 1 {
		return Result{}, fmt.Errorf("core: cost %d: %w", cost, ErrInvalidCost)
	}
	var res Result
	if err := l.check(); err != nil {
		return res, err
	}
	b := l.cur.Load() // one binding: the enforced and the shadow limits of one policy
	var sh *shadowRun
	if b.mem == nil && b.shadow != nil {
		sh = l.startShadows(ctx, b, store.OpPeek, key, cost)
	}
	err := l.doOn(ctx, b, store.Request{Op: store.OpPeek, Key: key, Cost: cost}, 0, &res)
	switch {
	case sh != nil:
		sh.finish(err, &res)
	case err == nil && b.shadow != nil:
		l.decideShadows(ctx, b, store.OpPeek, key, 0, cost, &res)
	}
	if err == nil {
		capPeek(ctx, &res)
	}
	return res, err
}

// Refund gives back what taken consumed, once, and only as far as that very
// take still holds it in the limits' state: what has since drained,
// refilled or left the window is not given back, so a late refund never
// lets a client past what the limits would allow had the take never
// happened. The exception is a refund at an instant older than the newest
// the key has seen (an injected clock that steps back): it gives back what
// the take held at that older instant, up to the step more than it holds
// now (GCRA, burst 100, a step of 99 s: 199 units at one instant). It
// returns what a peek of cost 1 reports afterwards.
//
// A Result can be copied freely; whatever copies are refunded, the decision
// is given back at most once. It fails, changing nothing, with
// [ErrNotTaken] when taken consumed nothing (a denial, a peek, a refund, the
// zero Result), [ErrRefundForeign] when another limiter decided it or key
// is not the key it was taken for, [ErrRefunded] when it was refunded
// before, [ErrRefundExpired] when its refund window has passed while it
// may still hold something, and [ErrRefundLedgerFull] (see
// [WithRefundLedger]). A refund arriving once the take holds nothing any
// more is harmless: it gives nothing back, and reports no error; so is a
// refund to a limit [Limiter.SetPolicy] has changed since the take.
func (l *Limiter) Refund(ctx context.Context, key string, taken Result) (Result, error) {
	if err := l.check(); err != nil {
		return Result{}, err
	}
	if !taken.taken || taken.id == 0 || taken.policy == nil {
		return Result{}, ErrNotTaken
	}
	if taken.owner != l || taken.kh != l.keyHash(key) {
		return Result{}, ErrRefundForeign
	}
	now := l.now()
	if now < 0 || now > maxInstant {
		return Result{}, fmt.Errorf("core: now %d ns: %w", now, ErrClock)
	}
	holds := taken.holds()
	b := l.cur.Load()                    // the refund is made on b, as its holds are read for b
	b.changedHolds(taken.policy, &holds) // nothing back from a limit changed since
	hold := int64(0)
	for _, h := range holds[:taken.NumLimits()] {
		hold = max(hold, min(h, 2*maxSpan))
	}
	var res Result
	if now-taken.at >= hold || l.resets.forgot(taken.kh, taken.at) {
		// The take holds nothing any more (it has drained, or the key was
		// reset since): nothing to give back.
		err := l.do(ctx, store.Request{Op: store.OpPeek, Key: key, Cost: 1}, 0, &res)
		return res, err
	}
	if now-taken.at >= l.window {
		return Result{}, fmt.Errorf("core: refund %v after the decision: %w", time.Duration(now-taken.at), ErrRefundExpired)
	}
	var sh *lowerShard
	if b.policy.spans {
		// Refunds of the key's spans are made one at a time (see lowerLog):
		// the shard stays locked until the store has made this one. A
		// refund waiting for it, behind another's store call, gives up
		// with its context, having spent nothing.
		sh = l.lowers.shard(taken.kh)
		if err := sh.lock(ctx); err != nil {
			return Result{}, err
		}
		defer sh.unlock()
	}
	if err := l.ledger.spend(decisionName{taken.kh, taken.id, taken.epoch}, taken.at+min(hold, l.window), now); err != nil {
		return Result{}, err
	}
	var e lowering
	if sh != nil {
		pos := taken.epoch // on other stores, the take's position (see doOn)
		if b.mem != nil {
			pos = b.mem.takePos(&taken)
		}
		if !l.unmoved(sh, b.policy, &taken, pos, now, &holds, &e) {
			err := l.doOn(ctx, b, store.Request{Op: store.OpPeek, Key: key, Cost: 1}, 0, &res)
			return res, err
		}
	}
	req := store.Request{Op: store.OpRefund, Key: key, Cost: taken.Cost, Taken: taken.at, Holds: holds,
		RefundID: [2]uint64{l.nonce, taken.id}}
	err := l.doOn(ctx, b, req, taken.epoch, &res)
	if sh != nil {
		e.at = now
		switch {
		case err != nil:
			e.pos = failedPos // the store may still make it, at any time
		case b.mem != nil:
			e.pos, res.id = res.id, 0 // see memTable.refundPos
		default:
			e.pos = sh.seq.Add(1) // numbered once made (see lowerLog)
		}
		if b.mem == nil {
			// The store made the refund at its own instant (Redis's TIME),
			// which may be before this clock's now: it moved the later
			// takes by what the take held then. Unknown when the call
			// failed (the store may make it at any time): what the take
			// held at its own instant.
			from := taken.at
			if err == nil {
				from = min(now, res.at)
			}
			l.shiftFrom(b.policy, &taken, from, &holds, &e)
		}
		// Kept while a take it may have moved may still be refunded.
		sh.record(taken.kh, e, min(l.window, b.policy.holdMax+1), l.lowers.perShard)
	}
	return res, err
}

// unmoved takes off holds (of a refund of taken, whose position in the
// log is pos, at now, on policy p) what the refunds of the key recorded
// since the take may have moved its spans, and sets in e how far the
// refund may move the spans of the takes after it. It reports false when the take gives nothing back: nothing is
// left of what it holds (a span limit holds nothing once the log may have
// forgotten refunds made since the take). The caller holds sh's lock.
func (l *Limiter) unmoved(sh *lowerShard, p *Policy, taken *Result, pos uint64, now int64, holds *[MaxLimits]int64, e *lowering) bool {
	e.taken, e.tmark = taken.at, pos
	for i := range p.limits {
		e.until[i] = taken.at + min(max(holds[i], 0), 2*maxSpan)
	}
	moved, ok := sh.moved(taken.kh, pos, l.markHi(l.cur.Load(), pos), taken.at, &e.until)
	left := false
	for i := range p.limits {
		h := holds[i]
		if h <= 0 {
			continue
		}
		if sp := p.limits[i].span; sp != nil {
			if !ok {
				// Refunds that may have moved it are forgotten: its spans
				// give nothing back (its windows still do).
				h = 0
			}
			h = max(0, h-moved[i])
			holds[i] = h
			e.shift[i] = min(sp.span(taken.Cost), max(0, taken.at+h-now)) // the most it gives back, in time
		}
		left = left || taken.at+h > now
	}
	return left
}

// shiftFrom sets in e how far a refund of taken, made at the instant from
// with holds (as unmoved left them), may move the spans of the takes after
// it: the most it gives back, in time.
func (l *Limiter) shiftFrom(p *Policy, taken *Result, from int64, holds *[MaxLimits]int64, e *lowering) {
	for i := range p.limits {
		if sp := p.limits[i].span; sp != nil && holds[i] > 0 {
			e.shift[i] = max(e.shift[i], min(sp.span(taken.Cost), max(0, taken.at+holds[i]-from)))
		}
	}
}

// markHi returns the highest position taken may have among its key's
// takes and refunds, its position being pos (see lowerShard.moved), or
// noHi when nothing bounds it. On the in-memory store it is pos itself:
// exact, a take's id given under the shard's lock in the locked mode, the
// epoch it read in the word mode (see "Positions" in memword.go). On
// other stores nothing bounds it: a take's mark is read before the store
// decides it.
func (l *Limiter) markHi(b *binding, pos uint64) uint64 {
	if b.mem == nil {
		return noHi
	}
	return pos
}

// Reset forgets key, in every limit (shadow limits too): its next request
// is decided as a first one. A refund of a decision taken for key before
// the reset gives nothing back (the reset already forgot what it took).
func (l *Limiter) Reset(ctx context.Context, key string) error {
	if err := l.check(); err != nil {
		return err
	}
	var res Result
	now := l.now()
	if now >= 0 && now <= maxInstant {
		l.resets.reset(l.keyHash(key), now, l.window)
	}
	b := l.cur.Load()
	err := l.doOn(ctx, b, store.Request{Op: store.OpReset, Key: key}, 0, &res)
	if b.shadow != nil && now >= 0 && now <= maxInstant {
		if serr := l.resetShadows(ctx, b, key, now); err == nil {
			err = serr
		}
	}
	return err
}
