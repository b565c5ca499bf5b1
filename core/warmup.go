package core

import (
	"fmt"
	"math"
	"time"

	"github.com/floodgate-go/floodgate/internal/warmcurve"
)

// WarmUp is a smooth rate limiter with a warm-up period, after Guava's
// SmoothWarmingUp RateLimiter: a key that has been idle starts slowly, with
// requests spaced by up to ColdFactor stable intervals, and speeds up to
// Rate over the WarmUp period of continuous use. Use it in front of a
// resource that needs warming, such as a cache or a connection pool.
//
// The model, in Guava's terms, with the stable interval S = Rate.Period /
// Rate.Count and the cold interval C = S·ColdFactor: a key stores permits
// while unused, up to maxPermits = thresholdPermits + 2·WarmUp/(S+C), where
// thresholdPermits = WarmUp/(2·S); it regains one every WarmUp/maxPermits
// while idle, so an idle key is cold again after WarmUp. Spending a stored
// permit costs the time under the throttling curve at it: S for the permits
// up to thresholdPermits, rising linearly to C at maxPermits; a permit not in
// store costs S. Going from maxPermits to thresholdPermits under saturation
// takes WarmUp, and a key never seen is cold (it holds maxPermits).
//
// A request is admitted when the key's next free instant has come (Guava's
// tryAcquire without a timeout), whatever its cost: the key then pays later,
// its next free instant moving on by the cost's time (rounded up to a
// nanosecond). So from cold, admitted unit requests are spaced by about C at
// first, then closer, down to exactly S once the stored permits are below
// the threshold: a continuously busy key runs at the stable rate.
//
// A key keeps two words: the next free instant in Unix ns, and the stored
// permits as a float64 (its bits XOR those of maxPermits, so that the all
// zero state is a cold key free since the epoch).
//
// Remaining is 1 when a further unit would pass now and 0 otherwise: after an
// admitted request it is 0, since every request pushes the next free instant
// past now. RetryAfter is exactly the time until the next free instant, and
// ResetAfter the time until the key is cold again with nothing outstanding
// (as good as a key never seen). A cost above Rate.Count never passes
// (RetryAfter is [Never]); Guava would admit it and make the key pay for it
// later.
//
// A stale now, older than an instant the key has seen admitted, is before
// the key's next free instant (every admission moves it to now or later), so
// it is denied: a stale caller is never granted more than the newest.
//
// Refund gives the cost back as if it were the key's most recent take, never
// making the key faster than that take's absence would: the stored permits
// grow by the cost (up to maxPermits) and, while the key's next free instant
// is still ahead, it moves back by what taking the cost from that store
// costs, but never before now. When the store is empty, the take may have
// spent fewer stored permits than its cost, and two words cannot tell how
// many: the next free instant then moves back by the cost at the stable
// interval only, the least the take can have cost, and the store gets the
// whole cost (a colder key is a slower one). A key whose next free instant
// has passed has paid its debts: its refund only returns the stored
// permits. A take and a refund of the same cost at the same instant leave
// the key exactly as it was when the take left permits in store, and slower
// (later admissions, never earlier ones) when it emptied the store.
type WarmUp struct {
	// Rate is the stable rate, reached after the warm-up.
	Rate Rate
	// WarmUp is the time a cold key takes to reach the stable rate under
	// continuous use, and an idle key to cool down completely. It must be
	// positive.
	WarmUp time.Duration
	// ColdFactor is the cold interval in stable intervals: a cold key
	// admits ColdFactor times slower than the stable rate. 0 means 3, as in
	// Guava; otherwise it must be finite and ≥ 1.
	ColdFactor float64
}

// Validate reports whether w is usable: Rate must be valid, WarmUp in
// (0, 36 years], ColdFactor 0 or finite and ≥ 1, Rate.Period·ColdFactor at
// most 36 years, and maxPermits below 2^52, so that permits are counted
// exactly.
func (w WarmUp) Validate() error { _, err := w.compile(); return err }

func (w WarmUp) value() Algorithm { return w }

func (w WarmUp) compile() (stepper, error) {
	if err := w.Rate.validate("WarmUp"); err != nil {
		return nil, err
	}
	if w.WarmUp <= 0 || int64(w.WarmUp) > maxSpan {
		return nil, fmt.Errorf("core: WarmUp: warm-up %v must be in (0, 36y]: %w", w.WarmUp, ErrInvalidConfig)
	}
	cf := w.ColdFactor
	if cf == 0 {
		cf = warmcurve.DefaultColdFactor
	}
	if math.IsNaN(cf) || math.IsInf(cf, 0) || cf < 1 {
		return nil, fmt.Errorf("core: WarmUp: cold factor %v must be finite and ≥ 1: %w", w.ColdFactor, ErrInvalidConfig)
	}
	if float64(w.Rate.Period)*cf > float64(maxSpan) {
		return nil, fmt.Errorf("core: WarmUp: period %v × cold factor %v overflows 36 years: %w", w.Rate.Period, cf, ErrInvalidConfig)
	}
	c := warmcurve.Of(w.Rate.Count, w.Rate.Period, w.WarmUp, cf)
	if !(c.MaxPermits < 1<<52) {
		return nil, fmt.Errorf("core: WarmUp: warm-up %v at %v stores %v permits, more than 2^52: %w", w.WarmUp, w.Rate, c.MaxPermits, ErrInvalidConfig)
	}
	return &warmStep{
		limit:     w.Rate.Count,
		period:    w.Rate.Period,
		stable:    c.Stable,
		threshold: c.Threshold,
		maxP:      c.MaxPermits,
		maxBits:   math.Float64bits(c.MaxPermits),
		slope:     c.Slope,
		coolDown:  c.CoolDown,
	}, nil
}

// warmStep is a compiled WarmUp; times are float64 ns. The state is
//
//	st[0] = nextFree, Unix ns
//	st[1] = Float64bits(stored) XOR Float64bits(maxP)
type warmStep struct {
	noPenalty
	limit     int64
	period    time.Duration
	stable    float64 // ns per permit at the stable rate
	threshold float64 // permits
	maxP      float64 // permits
	maxBits   uint64
	slope     float64 // ns per permit, per permit above threshold
	coolDown  float64 // ns per permit regained while idle
}

func (w *warmStep) words() int { return 2 }

func (w *warmStep) quota() (int64, time.Duration) { return w.limit, w.period }

func (w *warmStep) load(st []int64) (next int64, stored float64) {
	return st[0], math.Float64frombits(uint64(st[1]) ^ w.maxBits)
}

func (w *warmStep) store(st []int64, next int64, stored float64) {
	st[0], st[1] = next, int64(math.Float64bits(stored)^w.maxBits)
}

// storedAt is Guava's resync: the permits stored at now ≥ next, regained
// since next at one per coolDown, up to maxP. idleAt searches with it too.
func (w *warmStep) storedAt(next int64, stored float64, now int64) float64 {
	if now > next {
		stored += float64(now-next) / w.coolDown
		if stored > w.maxP {
			stored = w.maxP
		}
	}
	return stored
}

// charge returns the ns that taking cost permits costs with stored permits
// in store (Guava's storedPermitsToWaitTime plus the fresh permits at the
// stable interval), rounded up, and the stored permits it spends.
func (w *warmStep) charge(stored float64, cost int64) (int64, float64) {
	c := float64(cost)
	spend := min(c, stored)
	k := spend
	t := 0.0
	if above := stored - w.threshold; above > 0 {
		top := min(above, k)
		// The trapezoid under the curve between above−top and above.
		t = top * (w.interval(above) + w.interval(above-top)) / 2
		k -= top
	}
	t += w.stable * (k + (c - spend))
	d := math.Ceil(t)
	if !(d < float64(maxSpan)) {
		return maxSpan, spend
	}
	return int64(d), spend
}

// interval is the throttling curve above the threshold.
func (w *warmStep) interval(permitsAbove float64) float64 {
	return w.stable + permitsAbove*w.slope
}

func (w *warmStep) take(st []int64, now, cost int64, commit bool) outcome {
	next, stored := w.load(st)
	if cost > w.limit || next > now {
		o := outcome{resetAfter: nonNeg(w.coldAt(next, stored) - now), retryAfter: next - now}
		if cost > w.limit {
			o.remaining, o.retryAfter = btoi(next <= now), int64(Never)
		}
		return o
	}
	if cost == 0 {
		// The key as it stands: cold again when its stored permits are,
		// in the arithmetic idleAt and later decisions use.
		return outcome{allowed: true, remaining: 1, resetAfter: nonNeg(w.coldAt(next, stored) - now)}
	}
	stored = w.storedAt(next, stored, now)
	wait, spend := w.charge(stored, cost)
	next, stored = now+wait, stored-spend
	if commit {
		w.store(st, next, stored)
	}
	return outcome{allowed: true, remaining: btoi(next <= now), resetAfter: nonNeg(w.coldAt(next, stored) - now), hold: wait}
}

func (w *warmStep) refund(st []int64, now, _, until, cost int64) {
	next, stored := w.load(st)
	cost = min(cost, w.limit)
	if now > next { // debts paid: only the permits come back
		w.store(st, now, min(w.maxP, w.storedAt(next, stored, now)+float64(cost)))
		return
	}
	back := min(w.maxP, stored+float64(cost))
	// With permits left, the take spent cost of them, from back down to
	// stored; without, it may have spent fewer, and no more than cost fresh
	// permits' time is certain.
	var wait int64
	if stored > 0 {
		wait, _ = w.charge(back, cost)
	} else {
		wait, _ = w.charge(0, cost)
	}
	// The take's own span of time ended at until: what has passed of it
	// is not given back.
	wait = min(wait, until-now)
	w.store(st, max(now, next-wait), back)
}

func (w *warmStep) idleAt(st []int64) int64 {
	next, stored := w.load(st)
	return w.coldAt(next, stored)
}

// coldAt is the first instant ≥ next at which the store is full again, by
// the very arithmetic of storedAt: from then on the key is a cold key free
// now, as the zero state is.
func (w *warmStep) coldAt(next int64, stored float64) int64 {
	if stored >= w.maxP {
		return next
	}
	full := func(e int64) bool { return w.storedAt(next, stored, next+e) >= w.maxP }
	guess := int64(2 * maxSpan)
	if g := math.Ceil((w.maxP - stored) * w.coolDown); g < float64(guess) {
		guess = int64(g)
	}
	return next + firstTrue(0, guess, 2*maxSpan, full)
}
