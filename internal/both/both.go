// Package both charges one request on several limiters, all or nothing:
// the route a path variant names and the route of the pattern that serves
// the request, for its method as written and in canonical form (see
// middleware.Routes), so that no spelling limits a request more loosely
// than the handler it reaches is limited. The middleware and the config
// package share it.
package both

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/same"
)

// Limiter is middleware.Limiter.
type Limiter interface {
	AllowN(ctx context.Context, key string, cost int64) (core.Result, error)
	Refund(ctx context.Context, key string, taken core.Result) (core.Result, error)
}

// Scoped joins a scope and a key injectively: the key a limiter shared by
// several scopes is given (the middleware's buckets).
func Scoped(scope, key string) string {
	return strconv.Itoa(len(scope)) + ":" + scope + key
}

// MaxParts is the most limiters a Pair charges: a variant's route and the
// served pattern's, for a request's method in canonical form and as
// written, and the routes of templates with text and a parameter in a
// segment that ServeMux cannot match (several when they overlap).
const MaxParts = 5

// Part is a limiter a Pair charges, and the scope it charges the key under
// (the key as is for "").
type Part struct {
	Lim   Limiter
	Scope string
}

// Pair is a Limiter that charges the key it is given on each of its parts
// (two or more, at most MaxParts), under the part's scope, each by its own
// limits: a request passes when every part admits it, and a denial gives
// back what the others took. A Pair decides one request: make one for
// each.
type Pair struct {
	n     int
	parts [MaxParts]Part
	// origin is what made the Pair, if it says (see SetOrigin).
	origin any

	mu    sync.Mutex
	keys  [MaxParts]string
	res   [MaxParts]core.Result
	held  [MaxParts]bool // the parts whose cost the Pair holds
	shown int            // the index of the Result AllowN returned
	// refunded says that a part was given back: a Refund finding none
	// held then answers core.ErrRefunded itself.
	refunded bool
}

// Of returns the limiter and scope that charge parts, in order: nil
// limiters left out (they leave a request unlimited: the others are the
// stricter), and a limiter given twice under one scope charged once. That
// is a Pair (scope "") for two parts or more, the part itself for one,
// and nil for none. It panics for more than MaxParts.
func Of(parts ...Part) (Limiter, string) {
	var p Pair
	for _, pt := range parts {
		if pt.Lim != nil && !slices.ContainsFunc(p.parts[:p.n], pt.same) {
			p.parts[p.n] = pt
			p.n++
		}
	}
	switch p.n {
	case 0:
		return nil, ""
	case 1:
		return p.parts[0].Lim, p.parts[0].Scope
	}
	return &p, ""
}

// same reports whether a and o are one limiter under one scope: one
// bucket. Limiters that cannot be compared (of a type that cannot, or a
// value of a comparable type holding one that cannot, on which == panics)
// are never the same.
func (a Part) same(o Part) bool {
	return a.Scope == o.Scope && same.Is(a.Lim, o.Lim)
}

// SetOrigin records what made p (the middleware's Routes), before p is
// shared: a caller asking its maker again for one of p's parts names p.
func (p *Pair) SetOrigin(o any) { p.origin = o }

// Origin returns what made p, as SetOrigin recorded it (nil: not said).
func (p *Pair) Origin() any { return p.origin }

// Parts returns the parts p charges, in order.
func (p *Pair) Parts() []Part { return p.parts[:p.n] }

// Prefix puts prefix before every part's scope: the middleware keeps a
// CORS preflight's buckets apart so.
func (p *Pair) Prefix(prefix string) {
	for i := range p.parts[:p.n] {
		p.parts[i].Scope = prefix + p.parts[i].Scope
	}
}

// Key returns the key the Result AllowN returned was decided for, in its
// limiter: "" before AllowN.
func (p *Pair) Key() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keys[p.shown]
}

// AllowN charges cost for key on every part, in order (but first those
// that denied their key when a Pair last charged it: see denialHints), and
// returns the first denial (after giving back what the others took), or, when all
// admit, the binding Result, as one limiter of several limits gives it:
// the one with the least Remaining, its Delay the longest of all (the
// wait every part's shaping asks). Under core.WithMaxDelay, a part
// delaying longer than allowed is shown instead, its Delay its own: the
// caller gives every part back and denies the request by it.
//
// A limiter's error does not spare the request the others' limits: they
// still decide it, and a denial is returned as any denial (a decision,
// stricter than an outage). When the others admit, AllowN returns the
// errors, joined, with the binding one of their admissions, whose costs
// the Pair still holds (Result.Taken): the caller gives them back with
// Refund unless it serves the request all the same (failing open), so
// that a request served while one route's store is down is still counted
// on the others, as their own requests are. With every part failing, it
// holds nothing.
func (p *Pair) AllowN(ctx context.Context, key string, cost int64) (core.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs [MaxParts]error
	order, hs, hinted := p.order(key)
	for n, i := range order[:p.n] {
		pt := p.parts[i]
		k := p.keys[i]
		res, err := pt.Lim.AllowN(ctx, k, cost)
		p.res[i], errs[i] = res, err
		// An admission holds its cost, whether or not its Result can say
		// so (core.Result.Taken is core's: another package's limiter
		// never sets it); a denial holds it when it says so.
		p.held[i] = err == nil && (res.Allowed || res.Taken())
		if err == nil && !res.Allowed {
			denials.remember(hs[i])
			// All or nothing. A failed refund leaves the cost taken: the
			// stricter error.
			for _, j := range order[:n] {
				_, _ = p.giveBack(context.WithoutCancel(ctx), j)
			}
			p.shown = i
			p.waitForAll(ctx, &res, order[n+1:p.n], hs[i], hs[:p.n], hinted[i], cost)
			return res, nil
		}
		if err == nil {
			denials.forget(hs[i])
		}
	}
	p.shown = -1
	longest := -1
	for i := range p.parts[:p.n] {
		if errs[i] != nil {
			p.res[i], p.held[i] = core.Result{}, false
			continue
		}
		if p.shown < 0 || p.res[i].Remaining < p.res[p.shown].Remaining {
			p.shown = i
		}
		if longest < 0 || p.res[i].Delay > p.res[longest].Delay {
			longest = i
		}
	}
	err := errors.Join(errs[:p.n]...)
	if p.shown < 0 {
		p.shown = 0
		return core.Result{}, err
	}
	if d, ok := core.MaxDelayOf(ctx); ok && p.res[longest].Delay > d {
		// A part delays longer than its caller waits (a limiter that does
		// not apply core.WithMaxDelay itself): its Result, which the
		// caller turns into its denial (Result.DenyDelay) after giving
		// every part back.
		p.shown = longest
		return p.res[longest], err
	}
	res := p.res[p.shown]
	res.Delay = p.res[longest].Delay
	return res, err
}

// order sets each part's key for key and returns the order its parts
// are charged in: first those that denied their key last (see denials),
// then the others, each as given; with each part's hash in denials, and
// which parts denied last.
func (p *Pair) order(key string) (order [MaxParts]int, hs [MaxParts]uint64, denied [MaxParts]bool) {
	n := 0
	for i, pt := range p.parts[:p.n] {
		p.keys[i] = key
		if pt.Scope != "" {
			p.keys[i] = Scoped(pt.Scope, key)
		}
		hs[i] = denials.hash(pt.Lim, p.keys[i])
		if denied[i] = denials.denied(hs[i]); denied[i] {
			order[n] = i
			n++
		}
	}
	for i := range p.parts[:p.n] {
		if !denied[i] {
			order[n] = i
			n++
		}
	}
	return order, hs, denied
}

// peeker is a limiter that tells what it would decide, consuming nothing
// (core.Limiter, core.Overrides).
type peeker interface {
	Peek(ctx context.Context, key string, cost int64) (core.Result, error)
}

// waitForAll makes the RetryAfter of res, a denial by the part of hint h,
// the wait until every part admits the request: the parts charged before
// it admitted it (and were given it back), but those after it, in rest,
// were not asked, and one may deny it for longer, so that a client
// retrying at the denying part's wait would be denied again. They are
// peeked under ctx, its core.WithMaxDelay too (those that can be: a
// limiter of another package is not), and the instant they all admit is
// kept with the hint, for this request's parts (hs), cost and MaxDelay;
// a denial by a part charged first for its hint (wasHinted) asks no other
// part, as the hint is for (see denialHints), and reads that instant
// instead, when it was kept for the same parts, cost and MaxDelay (a hint
// is of one part and key, shared by every Pair charging them) less than
// keptFor ago: the other parts may have been charged since, by requests
// of theirs no Pair sees, and deny for longer. A wait is never made
// shorter.
func (p *Pair) waitForAll(ctx context.Context, res *core.Result, rest []int, h uint64, hs []uint64, wasHinted bool, cost int64) {
	at := res.At().UnixNano()
	if res.RetryAfter == core.Never || at <= 0 {
		return // no wait passes it, or no clock to keep an instant by
	}
	id := denials.waitID(ctx, h, hs, cost)
	if wasHinted {
		if until, ok := denials.until(h, id, at); ok {
			if until > at {
				res.RetryAfter = max(res.RetryAfter, time.Duration(until-at))
			}
			return
		}
	}
	var others time.Duration
	known := true
	for _, i := range rest {
		pk, ok := p.parts[i].Lim.(peeker)
		if !ok {
			continue
		}
		r, err := pk.Peek(ctx, p.keys[i], cost) // under ctx's core.WithMaxDelay, as a take
		if err != nil || r.Source() == core.SourceFallback {
			// Not told (a store fault, its failure mode answering): kept,
			// the instant would stand for the part once its store is back.
			known = false
			continue
		}
		if !r.Allowed && r.RetryAfter != core.Never {
			others = max(others, r.RetryAfter)
		}
	}
	if known {
		denials.setUntil(h, id, at+int64(others), at)
	}
	res.RetryAfter = max(res.RetryAfter, others)
}

// denialHints remembers, for a hash of a limiter and a key, that the
// limiter denied the key the last time a Pair charged it: a later Pair
// charges that part first, and, denied again, asks no other part. A
// client whose route is spent, sending it in variant spellings charged on
// several routes, costs one limiter call a request (none, when a Redis
// deny cache answers it), not an admission and a refund of every other
// route's. A hint only orders the parts: one lost, stale or shared by two
// keys (a slot of several, a hash of two) changes what a request costs,
// never what it is decided.
type denialHints struct {
	seed  maphash.Seed
	slots [4096]atomic.Uint64
	// untils holds instants (Unix nanoseconds, on the denying limiter's
	// clock) until which the other parts of a Pair whose part denied
	// deny too: the RetryAfter of a later denial by that part, charged
	// first for its hint, which asks no other (see Pair.waitForAll).
	// Each is kept at the slot of what it was found for (waitID: the
	// hint, the Pair's parts and keys, the cost and the MaxDelay), as
	// the hint's part and key may be charged by Pairs of other parts, or
	// for another cost, and checks holds beside it a hash of it and of
	// that: an instant is read only for the same, while the hint holds.
	// Like a hint, one lost or stale changes what a denial tells, never
	// what is decided; one not found costs the peeks of a first denial,
	// and one is read for keptFor at most.
	untils [4096]atomic.Int64
	kepts  [4096]atomic.Int64 // when each instant was found
	checks [4096]atomic.Uint64
}

// keptFor is how long an instant kept with a hint is read: a flood of
// denials costs one peek of the other parts a second, not one a request,
// and a wait told by an instant that the other parts' own requests made
// stale since (a part that admitted, spent) is told for a second at most.
const keptFor = time.Second

var denials = &denialHints{seed: maphash.MakeSeed()}

// hash returns the hint of l's key: l (its type alone when it cannot be
// hashed) and the key; never 0, an empty slot.
func (d *denialHints) hash(l Limiter, key string) uint64 {
	return (maphash.String(d.seed, key) ^ d.limiterID(l)*0x9e3779b97f4a7c15) | 1
}

// limiterID is a hash of l, or of its type alone when l cannot be hashed:
// of a type that cannot be compared, or a value of a comparable type
// holding one that cannot (an interface field holding a slice), which
// maphash.Comparable panics on.
func (d *denialHints) limiterID(l Limiter) uint64 {
	if !same.Comparable(l) {
		return uint64(reflect.ValueOf(reflect.TypeOf(l)).Pointer())
	}
	return maphash.Comparable(d.seed, l)
}

func (d *denialHints) slot(h uint64) *atomic.Uint64 { return &d.slots[d.index(h)] }

func (d *denialHints) index(h uint64) uint64 { return (h >> 1) % uint64(len(d.slots)) }

// waitID returns what an instant kept with h's hint is found for: the
// hint, the hints of every part of the Pair (in any order), the cost and
// ctx's core.WithMaxDelay, under which the other parts were peeked.
func (d *denialHints) waitID(ctx context.Context, h uint64, hs []uint64, cost int64) uint64 {
	var parts uint64
	for _, x := range hs {
		parts += x * 0xbf58476d1ce4e5b9 // the parts in any order
	}
	var b [40]byte
	binary.LittleEndian.PutUint64(b[0:], h)
	binary.LittleEndian.PutUint64(b[8:], parts)
	binary.LittleEndian.PutUint64(b[16:], uint64(cost))
	if maxDelay, ok := core.MaxDelayOf(ctx); ok {
		binary.LittleEndian.PutUint64(b[24:], uint64(maxDelay))
		b[32] = 1
	}
	return maphash.Bytes(d.seed, b[:])
}

// check returns the hash checks holds for the instant until kept for id,
// found at kept.
func (d *denialHints) check(id uint64, until, kept int64) uint64 {
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], id)
	binary.LittleEndian.PutUint64(b[8:], uint64(until))
	binary.LittleEndian.PutUint64(b[16:], uint64(kept))
	return maphash.Bytes(d.seed, b[:]) | 1 // never 0, an empty slot
}

// until returns the instant kept with h's hint for id (see untils), and
// whether there is one found less than keptFor before at (and not after
// it, on a clock set back): an instant, when it was found and its check
// read apart (another kept between) do not match.
func (d *denialHints) until(h, id uint64, at int64) (int64, bool) {
	if !d.denied(h) {
		return 0, false
	}
	i := id % uint64(len(d.untils))
	until, kept := d.untils[i].Load(), d.kepts[i].Load()
	fresh := kept <= at && at-kept < int64(keptFor)
	return until, fresh && d.checks[i].Load() == d.check(id, until, kept)
}

// setUntil keeps until with h's hint, for id, found at kept.
func (d *denialHints) setUntil(h, id uint64, until, kept int64) {
	if d.denied(h) {
		i := id % uint64(len(d.untils))
		d.untils[i].Store(until)
		d.kepts[i].Store(kept)
		d.checks[i].Store(d.check(id, until, kept))
	}
}

func (d *denialHints) denied(h uint64) bool { return d.slot(h).Load() == h }

func (d *denialHints) remember(h uint64) {
	if s := d.slot(h); s.Load() != h {
		s.Store(h)
	}
}

// forget clears h's hint, if it holds the slot: its part admits again.
func (d *denialHints) forget(h uint64) {
	if s := d.slot(h); s.Load() == h {
		s.CompareAndSwap(h, 0)
	}
}

// errNoPeek is Peek's error for a part that cannot peek.
var errNoPeek = errors.New("both: a part cannot peek")

// errFallbackPeek is Peek's error for a part whose store's failure mode
// answered the peek (core.SourceFallback): it tells nothing of the part.
var errFallbackPeek = errors.New("both: a part's peek was answered by its store's failure mode")

// Peek reports what AllowN would decide for cost on every part, consuming
// nothing: the first part's Result when all admit, else the denial of the
// longest RetryAfter (what a retry waits for: every part). It fails when
// a part cannot peek (a limiter of another package) or fails, or its
// store's failure mode answered the peek (core.SourceFallback).
func (p *Pair) Peek(ctx context.Context, key string, cost int64) (core.Result, error) {
	var out core.Result
	for i, pt := range p.parts[:p.n] {
		pk, ok := pt.Lim.(peeker)
		if !ok {
			return core.Result{}, errNoPeek
		}
		k := key
		if pt.Scope != "" {
			k = Scoped(pt.Scope, key)
		}
		r, err := pk.Peek(ctx, k, cost)
		if err != nil {
			return core.Result{}, err
		}
		if r.Source() == core.SourceFallback {
			return core.Result{}, errFallbackPeek
		}
		if i == 0 || !r.Allowed && (out.Allowed || r.RetryAfter > out.RetryAfter) {
			out = r
		}
	}
	return out, nil
}

// ExhaustedReset returns the longest reset of the limits the admission
// AllowN last decided left less than cost, on every part: the Result
// AllowN returns is one part's (the binding one), and a retry waits no
// longer than this for them all.
func (p *Pair) ExhaustedReset(cost int64) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out time.Duration
	for i := range p.parts[:p.n] {
		if r := &p.res[i]; r.Allowed {
			out = max(out, ExhaustedReset(r, cost))
		}
	}
	return out
}

// ExhaustedReset returns the longest reset of the limits of r that have
// less than cost remaining: when a retry of cost is admitted by them all
// at the latest. A Result that lists no limits (a limiter of another
// package) counts by its top-level figures.
func ExhaustedReset(r *core.Result, cost int64) time.Duration {
	var buf [core.MaxLimits]core.LimitResult
	ls := r.AppendLimits(buf[:0])
	if len(ls) == 0 && r.Remaining < cost {
		return r.ResetAfter
	}
	var out time.Duration
	for i := range ls {
		if ls[i].Remaining < cost {
			out = max(out, ls[i].ResetAfter)
		}
	}
	return out
}

// Holds reports whether p holds the cost of a part, which Refund gives
// back: after an AllowN that failed for another part (see AllowN), the
// Result returned cannot say it for a limiter of another package than
// core.
func (p *Pair) Holds() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.held[:p.n], true)
}

// Refund gives back what each limiter took for the request (key is the one
// AllowN was given; taken, what it returned, says no more). It returns the
// refund's Result of the limiter whose Result AllowN returned, and the
// errors of all, joined. A part given back, or never taken, is skipped;
// with none held, it returns core.ErrRefunded when a part was given back,
// else the shown limiter's answer (core.ErrNotTaken for a denial): no part
// is asked to give back twice, which a limiter of another package could
// not refuse.
func (p *Pair) Refund(ctx context.Context, _ string, taken core.Result) (core.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.held[:p.n], true) {
		if p.refunded {
			return core.Result{}, core.ErrRefunded
		}
		return p.parts[p.shown].Lim.Refund(ctx, p.keys[p.shown], taken)
	}
	var out core.Result
	var errs [MaxParts]error
	for i := range p.parts[:p.n] {
		res, err := p.giveBack(ctx, i)
		errs[i] = err
		if i == p.shown {
			out = res
		}
	}
	return out, errors.Join(errs[:p.n]...)
}

// giveBack refunds part i if it holds its cost, and then forgets it (a
// refund failing otherwise than core.ErrRefunded leaves it held, to try
// again).
func (p *Pair) giveBack(ctx context.Context, i int) (core.Result, error) {
	if !p.held[i] {
		return core.Result{}, nil
	}
	res, err := p.parts[i].Lim.Refund(ctx, p.keys[i], p.res[i])
	if err == nil || errors.Is(err, core.ErrRefunded) {
		p.held[i], p.refunded = false, true
	}
	return res, err
}

// SameParts reports whether p and o charge the same parts, in order: one
// set of buckets for one key (Pairs are made afresh for each request).
func (p *Pair) SameParts(o *Pair) bool {
	if p.n != o.n {
		return false
	}
	for i := range p.n {
		if !p.parts[i].same(o.parts[i]) {
			return false
		}
	}
	return true
}
