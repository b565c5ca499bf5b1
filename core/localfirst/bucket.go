package localfirst

import (
	"math"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
)

// spans are the lengths of time one Redis hash holds buckets' shared
// state: a round writes a key's state to the hash of the span it runs in
// and reads it from that span's hash or the previous one's, so a bucket
// whose burst refills within its span has recovered by the time its state
// leaves them. A bucket limit's span is the shortest that its refill time
// (Burst × interval) fits in; Bind refuses slower ones.
var spans = [...]time.Duration{time.Minute, time.Hour, 24 * time.Hour}

// spanOf returns the span of a bucket whose burst refills in tol, or 0
// when none is long enough.
func spanOf(tol int64) int64 {
	for _, s := range spans {
		if tol <= int64(s) {
			return int64(s)
		}
	}
	return 0
}

// bucket is one key's GCRA or token bucket on this node (see the package
// documentation, "Buckets"): a view of the shared state, the live lease,
// the share without a lease, and what the next round sends.
type bucket struct {
	// v and vl are the view: the shared state as the last round read it,
	// with what this node admitted since. GCRA: v is the TAT (ns). Token
	// bucket: v holds the tokens (float64 bits), vl the instant they were
	// counted at (0: a full bucket).
	v, vl int64
	// credit is what is left of the live lease, which the node may spend
	// until exp (the store's clock, ns; 0: no lease); ver is the version
	// of the limits it was granted under (see limits).
	credit, exp int64
	ver         uint64
	// s and sl are the share: the same forms, for the bucket of 1/k of the
	// burst and the rate that bounds what the node admits without a
	// lease. Every unit the node admits is charged to it.
	s, sl int64
	k     int64 // the share's divisor, set by the last read (0: none yet: Nodes)
	// unconf is what the node admitted without a lease and has not pushed;
	// inflight what the round in progress pushes.
	unconf, inflight int64
	// asked is the cost of the takes since the last round, used what they
	// spent of the lease, both in the units the rounds push and lease (see
	// table.pushUnits); short reports a denial (the share, the lease or
	// the view fell short: a lease may serve the next ones).
	asked, used int64
	short       bool
	// frozen is what earlier leases left, given back by the next round;
	// until is, in ns, the hold of the latest lease (its units are
	// refilled by then: nothing is given back from then on).
	frozen, until int64
	sharers       int64 // the nodes sharing the key at the last read (0: none yet)
	// paid is what takes of a table of other rates than the latest's
	// were charged beyond their cost, below one unit of the latest
	// limits, in ns of refill time: the next takes spend it first (see
	// table.pushUnits).
	paid int64
}

// ask records a take of cost, admitted or not.
func (b *bucket) ask(cost int64, taken bool) {
	b.asked += cost
	b.short = b.short || !taken
}

// gcra is GCRA's arithmetic, core.GCRA's: burst units at once, one more
// every interval ns, tol = burst·interval.
type gcra struct{ interval, tol, burst int64 }

// outcome writes into o the outcome of taking cost (0: the state as it
// stands) from the TAT tat at now, and returns the TAT after it.
func (g gcra) outcome(o *store.Outcome, tat, now, cost int64) int64 {
	diff := max(tat, now) + cost*g.interval - now // meaningless if cost > burst
	if cost > g.burst || diff > g.tol {
		debt := max(tat-now, 0)
		*o = store.Outcome{Remaining: max(g.tol-debt, 0) / g.interval, ResetAfter: time.Duration(debt), RetryAfter: time.Duration(diff - g.tol)}
		if cost > g.burst {
			o.RetryAfter = core.Never
		}
		return tat
	}
	*o = store.Outcome{Allowed: true, Remaining: (g.tol - diff) / g.interval, ResetAfter: time.Duration(diff)}
	return now + diff
}

// tokens is a token bucket's arithmetic, x/time/rate's as core.TokenBucket
// has it: burst tokens, refilled at perSec a second.
type tokens struct {
	burst          int64
	burstF, perSec float64
}

// have is the tokens held at at ≥ last by a bucket that held tok at last
// (0: a full bucket), capped at the burst.
func (b tokens) have(tok float64, last, at int64) float64 {
	if last == 0 {
		return b.burstF
	}
	// The explicit conversion forbids fusing the multiply and the add.
	t := tok + float64(time.Duration(at-last).Seconds()*b.perSec)
	return min(t, b.burstF)
}

// admits is x/time/rate's verdict on the tokens left after a take: none
// missing, or less than a nanosecond's refill.
func (b tokens) admits(after float64) bool {
	return !(after < 0) || float64(-after/b.perSec)*float64(time.Second) < 1
}

// nsFor is the time, rounded up, to refill n tokens.
func (b tokens) nsFor(n float64) int64 {
	d := math.Ceil(n / b.perSec * 1e9)
	if !(d >= 0) {
		return 0
	}
	return int64(min(d, float64(core.Never)))
}

func (b tokens) whole(t float64) int64 {
	if !(t >= 1) {
		return 0
	}
	return int64(min(t, b.burstF))
}

// outcome writes into o the outcome of taking cost (0: the state as it
// stands) from a bucket that held tok at last (0: full) at now, and
// returns the bucket after it (tokens and instant). ResetAfter and
// RetryAfter are rounded up to a nanosecond from the refill rate.
func (b tokens) outcome(o *store.Outcome, tok float64, last, now, cost int64) (float64, int64) {
	at := max(now, last)
	have := b.have(tok, last, at)
	full := func(t float64) time.Duration { return time.Duration(max(at+b.nsFor(b.burstF-t)-now, 0)) }
	after := have - float64(cost)
	if cost > b.burst || !b.admits(after) {
		*o = store.Outcome{Remaining: b.whole(have), ResetAfter: full(have), RetryAfter: core.Never}
		if cost <= b.burst {
			o.RetryAfter = time.Duration(max(at+b.nsFor(-after)-now, 1))
		}
		return tok, last
	}
	*o = store.Outcome{Allowed: true, Remaining: b.whole(after), ResetAfter: full(after)}
	return after, max(at, 1)
}

// divisor is the share's divisor of b: what the last read set, Nodes
// before any.
func (s *Store) divisor(b *bucket) int64 {
	if b.k > 0 {
		return b.k
	}
	return int64(s.opts.Nodes)
}

// take writes into o the outcome of taking cost (0: the state as it
// stands) from the bucket of 1/k of l stored in (x, xl), and returns the
// state after it.
func (l *lim) take(o *store.Outcome, x, xl, k, now, cost int64) (int64, int64) {
	if l.kind == kindGCRA {
		if k == 1 {
			return gcra{interval: l.interval, tol: l.tol, burst: l.burst}.outcome(o, x, now, cost), 0
		}
		b := l.burst / k
		iv := l.interval * k
		return gcra{interval: iv, tol: b * iv, burst: b}.outcome(o, x, now, cost), 0
	}
	b := l.burst / k
	tok, last := tokens{burst: b, burstF: float64(b), perSec: l.perSec / float64(k)}.outcome(o, math.Float64frombits(uint64(x)), xl, now, cost)
	return int64(math.Float64bits(tok)), last
}

// fits reports whether the bucket of 1/k of l stored in (x, xl) admits
// cost at now: take's verdict, without its outcome.
func (l *lim) fits(x, xl, k, now, cost int64) bool {
	b := l.burst / k
	if cost > b {
		return false
	}
	if l.kind == kindGCRA {
		iv := l.interval * k
		return max(x, now)+cost*iv-now <= b*iv
	}
	tb := tokens{burst: b, burstF: float64(b), perSec: l.perSec / float64(k)}
	return tb.admits(tb.have(math.Float64frombits(uint64(x)), xl, max(now, xl)) - float64(cost))
}

// charge takes cost from the bucket of 1/k of l stored in (x, xl)
// whether it admits it or not, and returns the state after it.
func (l *lim) charge(x, xl, k, now, cost int64) (int64, int64) {
	if l.kind == kindGCRA {
		return max(x, now) + cost*l.interval*k, 0
	}
	b := l.burst / k
	tb := tokens{burst: b, burstF: float64(b), perSec: l.perSec / float64(k)}
	at := max(now, xl)
	return int64(math.Float64bits(tb.have(math.Float64frombits(uint64(x)), xl, at) - float64(cost))), max(at, 1)
}

// avail is the whole units the view holds at now.
func (l *lim) avail(b *bucket, now int64) int64 {
	var o store.Outcome
	l.take(&o, b.v, b.vl, 1, now, 0)
	return o.Remaining
}

// peekBucket writes into o the outcome of taking cost (0: the state as it
// stands) from b: the view must admit it, and the live lease hold it (its
// units, in the latest limits': see table.pushUnits), or without a live
// lease the share; lat: the latest limits, i the limit's index. It returns the view
// after the take (nv, nvl: see takeBucket), whether the lease would pay
// for it, and whether the lease or the share alone denied it (retried
// after a SyncPeriod at most). forgot: the key was forgotten and no round
// has read it since (see forget.go): no share.
func (t *table) peekBucket(o *store.Outcome, l *lim, b *bucket, now, cost, units int64, lat *limits, i int, forgot bool) (nv, nvl int64, lease, short bool) {
	nv, nvl = l.take(o, b.v, b.vl, 1, now, cost)
	if cost == 0 || !o.Allowed {
		return nv, nvl, false, false
	}
	retry := t.k.s.opts.SyncPeriod
	if now < b.exp {
		if b.ver != lat.ver {
			// Granted under other limits than the latest, in whose units
			// every table spends it (see table.pushUnits): the node keeps
			// its share of the latest burst at most, and gives the rest
			// back at the next round (decide holds the lock for a lease).
			// A table of other rates spent it in the latest's units as it
			// stood: a 600/min route's lease, after a SetPolicy made a
			// 60/min route's limits the latest, paid ten of its units
			// apiece, and two nodes admitted all their views held, 90 of
			// a bucket of 60 (TestAttackSharedBucketLeaseSpentInOtherUnits).
			keep := min(b.credit, lat.ls[i].burst/t.k.s.divisor(b))
			b.frozen += b.credit - keep
			b.credit, b.ver = keep, lat.ver
		}
		if b.credit >= units {
			return nv, nvl, true, false
		}
	} else {
		// A key forgotten before its bucket refilled (forgot) spends no
		// share until a round reads it: its state is in Redis, not here.
		k := t.k.s.divisor(b)
		switch {
		case forgot:
		case l.fits(b.s, b.sl, k, now, cost):
			return nv, nvl, false, false
		default:
			var so store.Outcome
			l.take(&so, b.s, b.sl, k, now, cost)
			retry = min(retry, so.RetryAfter)
		}
	}
	l.take(o, b.v, b.vl, 1, now, 0)
	o.Allowed, o.RetryAfter = false, retry
	return b.v, b.vl, false, true
}

// takeBucket takes cost, which peekBucket admitted, from b: the view
// becomes (nv, nvl), what peekBucket returned; the cost is charged to the
// share, and its units (see table.pushUnits) paid by the lease (lease) or
// pushed at the next round.
func (t *table) takeBucket(l *lim, b *bucket, now, cost, units, nv, nvl int64, lease bool) {
	b.v, b.vl = nv, nvl
	b.s, b.sl = l.charge(b.s, b.sl, t.k.s.divisor(b), now, cost)
	if lease {
		b.credit -= units
		b.used += units
	} else {
		b.unconf += units
	}
}

// refundBucket gives back cost taken with a hold ending at until: to the
// view and the share as core's GCRA and token bucket give back (what the
// take still holds), and of the units still to push (never to the lease:
// units already pushed or leased stay counted in Redis, denying more,
// never less).
func (t *table) refundBucket(lat *limits, i int, b *bucket, now, until, cost int64) {
	l := &t.ls[i]
	k := t.k.s.divisor(b)
	var units int64
	if l.kind == kindGCRA {
		give := min(min(cost, l.burst)*l.interval, until-now)
		if give <= 0 {
			return
		}
		b.v = max(b.v-give, min(b.v, now))
		units = give / l.interval
		b.s = max(b.s-units*l.interval*k, min(b.s, now))
	} else {
		give := min(float64(min(cost, l.burst)), float64(time.Duration(until-now).Seconds()*l.perSec))
		if !(give > 0) {
			return
		}
		tb := tokens{burst: l.burst, burstF: float64(l.burst), perSec: l.perSec}
		at := max(now, b.vl)
		b.v, b.vl = int64(math.Float64bits(min(tb.have(math.Float64frombits(uint64(b.v)), b.vl, at)+give, tb.burstF))), max(at, 1)
		units = int64(give)
		sb := tokens{burst: l.burst / k, burstF: float64(l.burst / k), perSec: l.perSec / float64(k)}
		at = max(now, b.sl)
		b.s, b.sl = int64(math.Float64bits(min(sb.have(math.Float64frombits(uint64(b.s)), b.sl, at)+float64(units), sb.burstF))), max(at, 1)
	}
	b.unconf -= min(t.unitsBack(lat, i, units), max(b.unconf, 0))
}

// recovered reports whether b holds nothing the node must keep: a view
// that has refilled, no lease, nothing to push or give back.
func (l *lim) recovered(b *bucket, now int64) bool {
	if b.credit > 0 && now < b.exp || b.unconf != 0 || b.inflight != 0 || b.frozen != 0 {
		return false
	}
	return l.avail(b, now) >= l.burst
}

// reread sets b's view and share from a round's read: the shared state the
// round left before its lease (GCRA: the TAT tat; token bucket: tok tokens at
// preAt), and sharers, the nodes sharing the key. The view is that state with
// the units of former leases given back (they will be) and those admitted
// since the round began (they will be pushed); the share, 1/k of the burst
// and the rate (k: Nodes, or more sharers), starts holding 1/k of what the
// view holds.
func (s *Store) reread(l *lim, b *bucket, now, tat int64, tok float64, preAt, sharers int64) {
	if l.kind == kindGCRA {
		if f := b.frozen; f > 0 {
			tat = max(tat-f*l.interval, min(tat, now))
		}
		if b.unconf > 0 {
			tat = max(tat, now) + b.unconf*l.interval
		}
		b.v, b.vl = tat, 0
	} else {
		tb := tokens{burst: l.burst, burstF: float64(l.burst), perSec: l.perSec}
		at := max(now, preAt, 1)
		tok := min(tb.have(tok, max(preAt, 1), at)+float64(b.frozen), tb.burstF) - float64(b.unconf)
		b.v, b.vl = int64(math.Float64bits(tok)), at
	}
	k := max(int64(s.opts.Nodes), sharers)
	b.k, b.sharers = k, sharers
	share := min(l.avail(b, now)/k, l.burst/k)
	if l.kind == kindGCRA {
		iv := l.interval * k
		b.s, b.sl = now+(l.burst/k-share)*iv, 0
	} else {
		b.s, b.sl = int64(math.Float64bits(float64(share))), max(now, 1)
	}
}
