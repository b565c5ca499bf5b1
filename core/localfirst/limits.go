package localfirst

import (
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// kind is how a limit's state is synced: window counts, or a bucket
// (GCRA's theoretical arrival time, a token bucket's tokens) leased out.
type kind uint8

const (
	kindFixed   kind = iota // core.FixedWindow aligned to the epoch: a count per window
	kindSliding             // core.SlidingWindow: a count per window, the previous one weighted
	kindGCRA                // core.GCRA: a TAT, leased in units
	kindToken               // core.TokenBucket: tokens, leased in units
)

func (k kind) bucket() bool { return k >= kindGCRA }

// lim is one limit of a bound policy, as this store decides it.
type lim struct {
	kind kind
	at   int // the limit's state in an entry: its two window slots from ws[at], or its bucket bs[at]
	// Windows: at most limit units per window of window ns.
	limit, window int64
	// Buckets: burst units at once, one more every interval ns; tol is
	// burst·interval (GCRA's tolerance, a token bucket's time to fill).
	// perSec is a token bucket's rate as x/time/rate reads it, tokens per
	// second.
	burst, interval, tol int64
	perSec               float64
	span                 int64 // how long one Redis hash holds the bucket's state (see spans)
}

// limitsOf returns p's limits as the store decides them, or an error
// wrapping core.ErrInvalidConfig for a limit it cannot sync.
func limitsOf(p *core.Policy) ([]lim, error) {
	if p == nil {
		return nil, fmt.Errorf("localfirst: nil policy: %w", core.ErrInvalidConfig)
	}
	var ls []lim
	var windows, buckets int
	for _, l := range p.Limits() {
		var m lim
		switch a := l.Algorithm.(type) {
		case core.FixedWindow:
			if a.Anchored {
				return nil, fmt.Errorf("localfirst: policy %q: limit %q: an Anchored FixedWindow starts each key's window at its first request, which nodes do not agree on: %w", p.Name(), l.Name, core.ErrInvalidConfig)
			}
			m = lim{kind: kindFixed, limit: a.Quota, window: int64(a.Window)}
		case core.SlidingWindow:
			m = lim{kind: kindSliding, limit: a.Quota, window: int64(a.Window)}
		case core.GCRA:
			a = a.WithDefaults()
			iv := int64(a.Rate.Interval())
			m = lim{kind: kindGCRA, burst: a.Burst, interval: iv, tol: a.Burst * iv}
		case core.TokenBucket:
			a = a.WithDefaults()
			iv := int64(a.Rate.Interval())
			m = lim{kind: kindToken, burst: a.Burst, interval: iv, tol: a.Burst * iv, perSec: a.Rate.PerSecond()}
		default:
			return nil, fmt.Errorf("localfirst: policy %q: limit %q: %T cannot be synced by this store: %s (see the package documentation; use the Redis store for it): %w", p.Name(), l.Name, a, unsyncable(a), core.ErrInvalidConfig)
		}
		if m.kind.bucket() {
			if m.span = spanOf(m.tol); m.span == 0 {
				return nil, fmt.Errorf("localfirst: policy %q: limit %q: its burst refills in %v, longer than the %v a key's shared state is kept between rounds (see the package documentation; use the Redis store for it): %w", p.Name(), l.Name, time.Duration(m.tol), spans[len(spans)-1], core.ErrInvalidConfig)
			}
			m.at = buckets
			buckets++
		} else {
			m.at = 2 * windows
			windows++
		}
		ls = append(ls, m)
	}
	return ls, nil
}

// unsyncable says in a few words why a's state cannot be synced here.
func unsyncable(a core.Algorithm) string {
	switch a.(type) {
	case core.LeakyBucket:
		return "each admission's delay is its place in one queue, which a node cannot assign without the others'"
	case core.SlidingLog:
		return "its state is every admission's timestamp, not a count"
	case core.Hybrid, core.WarmUp, core.Backoff:
		return "its mode switches on the order of events, not on a total"
	case core.RollingWindow:
		return "its per-period counters could be synced like a SlidingWindow's, which is not implemented"
	}
	return "its state is neither a count per window nor a bucket"
}

// shape returns the fingerprint of what p's state means in Redis: its
// name, and each limit's name, kind and window (a bucket's span: see
// spans), what SetPolicy may not change; not the quotas, rates and bursts,
// so that a policy changed by SetPolicy (or a fleet part way through a
// change) keeps its counts. Policies of another shape count in other keys
// and decide on other keysets: a policy whose bucket refills in another
// span is one SetPolicy refuses, which core.Overrides then binds anew,
// its name's state starting afresh, as on the Redis store.
func shape(p *core.Policy, ls []lim) [sha256.Size]byte {
	b := fmt.Appendf(nil, "floodgate localfirst 2|%q", p.Name())
	for i, l := range p.Limits() {
		w := ls[i].window
		if ls[i].kind.bucket() {
			w = ls[i].span
		}
		b = fmt.Appendf(b, "|%q:%d:%d", l.Name, ls[i].kind, w)
	}
	return sha256.Sum256(b)
}

// sameShape reports whether ls decides on the state of old: the same
// kinds in the same order, the same windows, the same bucket spans.
func sameShape(old, ls []lim) bool {
	if len(old) != len(ls) {
		return false
	}
	for i := range ls {
		if old[i].kind != ls[i].kind || old[i].window != ls[i].window || old[i].at != ls[i].at || old[i].span != ls[i].span {
			return false
		}
	}
	return true
}
