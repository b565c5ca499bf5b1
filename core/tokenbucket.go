package core

import (
	"fmt"
	"math"
	"time"
)

// TokenBucket is the classic token bucket: a bucket of capacity Burst
// tokens, initially full, refilled continuously at Rate. A request of cost c
// passes when the bucket holds c tokens, and takes them.
//
// It decides exactly as golang.org/x/time/rate does: every request is
// decided like Limiter.AllowN(now, cost) of rate.NewLimiter(
// rate.Limit(float64(Rate.Count)/Rate.Period.Seconds()), int(Burst)), with
// the same float64 arithmetic. The tokens are a float64 count, refilled by
// elapsed.Seconds()·(events per second) at each decision and capped at
// Burst; and, as in x/time/rate, a request whose shortfall would refill in
// under one nanosecond passes (x/time/rate's wait truncates to 0), leaving
// the bucket that fraction of a token in debt. So at 1/s a unit may pass
// 1 ns before its token is whole, and from about one unit per ns up, up to
// ⌊rate·1ns⌋ units beyond the tokens held pass. The one deliberate
// difference is the handling of a stale now (below).
//
// A key keeps two words: the float64 token count (stored as its bits XOR
// the bits of float64(Burst), so that the all-zero state is a full bucket)
// and the instant of the last admitted take or refund.
//
// A caller whose now is older than that instant is decided at that instant
// instead (now is clamped to it), so a stale caller never sees more tokens
// than the newest did. x/time/rate decides such a call identically (it adds
// no tokens for a backwards step) but, when it admits it, moves its clock
// back, so that the next call refills the interval between the stale
// instant and the newer one a second time; TokenBucket does not.
//
// Remaining is the whole number of tokens left (after the request when it
// passes). ResetAfter is the time until the bucket is full again: from then
// on the key decides exactly as a key never seen (the memory store may drop
// it). RetryAfter is the exact wait until the same request passes: estimated
// from the refill rate, then checked against, and adjusted to, the very
// arithmetic that decides, so that the request passes at now+RetryAfter and
// not one nanosecond earlier. A cost above Burst never passes (RetryAfter is
// [Never]). The quota is Burst per Burst emission intervals
// (Rate.Period/Rate.Count rounded up to a nanosecond).
//
// Refund puts the cost back into the bucket, up to Burst at most: tokens
// that the refill has replaced since are not given twice. A take and a
// refund of the same cost at the same instant leave the bucket with exactly
// the tokens it had (for Burst below 2^53), as x/time/rate's
// Reservation.CancelAt at the reservation's instant does.
type TokenBucket struct {
	Rate Rate
	// Burst is the bucket's capacity, the most granted at once; 0 means
	// Rate.Count.
	Burst int64
}

// Validate reports whether b is usable: Rate must be valid, Burst ≥ 0, and
// refilling an empty bucket (Burst·Rate.Period/Rate.Count) must take at most
// about 36 years.
func (b TokenBucket) Validate() error { _, err := b.compile(); return err }

// WithDefaults returns b with a zero Burst replaced by Rate.Count.
func (b TokenBucket) WithDefaults() TokenBucket {
	if b.Burst == 0 {
		b.Burst = b.Rate.Count
	}
	return b
}

func (b TokenBucket) value() Algorithm { return b }

func (b TokenBucket) compile() (stepper, error) {
	if err := b.Rate.validate("TokenBucket"); err != nil {
		return nil, err
	}
	if b.Burst < 0 {
		return nil, fmt.Errorf("core: TokenBucket: burst %d must be ≥ 0: %w", b.Burst, ErrInvalidConfig)
	}
	burst := b.WithDefaults().Burst
	iv := int64(b.Rate.Interval())
	fill, ok := mulSpan(burst, iv)
	if !ok {
		return nil, fmt.Errorf("core: TokenBucket: burst %d × interval %v overflows 36 years: %w", burst, time.Duration(iv), ErrInvalidConfig)
	}
	limit := b.Rate.PerSecond()
	if !(limit > 0) || math.IsInf(limit, 0) {
		return nil, fmt.Errorf("core: TokenBucket: rate %v is not a usable number of events per second: %w", b.Rate, ErrInvalidConfig)
	}
	return &tokenStep{
		limit:  limit,
		burst:  burst,
		burstF: float64(burst),
		bits:   math.Float64bits(float64(burst)),
		fill:   fill,
	}, nil
}

// tokenStep is a compiled TokenBucket. The state is
//
//	st[0] = Float64bits(tokens) XOR Float64bits(float64(burst))
//	st[1] = last: Unix ns of the last admitted take or refund (0: never)
type tokenStep struct {
	noPenalty
	limit  float64 // tokens per second, as x/time/rate's Limit
	burst  int64
	burstF float64
	bits   uint64 // Float64bits(burstF)
	fill   int64  // Burst·Rate.Interval(): ≥ the ns to refill an empty bucket, ≤ maxSpan
}

func (s *tokenStep) words() int { return 2 }

func (s *tokenStep) quota() (int64, time.Duration) { return s.burst, time.Duration(s.fill) }

func (s *tokenStep) load(st []int64) (tokens float64, last int64) {
	return math.Float64frombits(uint64(st[0]) ^ s.bits), st[1]
}

func (s *tokenStep) store(st []int64, tokens float64, last int64) {
	st[0], st[1] = int64(math.Float64bits(tokens)^s.bits), last
}

// refilled is x/time/rate's advance: the tokens held elapsed ns (≥ 0) after
// the state's last instant. Every decision, and every search for an instant,
// goes through this one function so that they agree to the last bit.
func (s *tokenStep) refilled(tokens float64, elapsed int64) float64 {
	// The explicit conversion forbids fusing the multiply and the add.
	t := tokens + float64(time.Duration(elapsed).Seconds()*s.limit)
	if t > s.burstF {
		t = s.burstF
	}
	return t
}

// admits is x/time/rate's verdict for AllowN once the cost is known to be
// within the burst: the tokens left after the take are non-negative, or the
// shortfall refills in under a nanosecond (durationFromTokens truncates it
// to 0).
func (s *tokenStep) admits(after float64) bool {
	if !(after < 0) {
		return true
	}
	return float64(-after/s.limit)*float64(time.Second) < 1
}

func (s *tokenStep) take(st []int64, now, cost int64, commit bool) outcome {
	tokens, last := s.load(st)
	at := max(now, last)
	have := s.refilled(tokens, at-last)
	if cost > s.burst {
		return outcome{remaining: s.floor(have), resetAfter: nonNeg(s.fullAt(tokens, last) - now), retryAfter: int64(Never)}
	}
	after := have - float64(cost)
	if !s.admits(after) {
		return outcome{
			remaining:  s.floor(have),
			resetAfter: nonNeg(s.fullAt(tokens, last) - now),
			retryAfter: s.passAt(tokens, last, now, float64(cost)) - now,
		}
	}
	if cost == 0 {
		// A report of the state as it stands: it is full when the stored
		// bucket is, in the arithmetic idleAt and later decisions use.
		return outcome{allowed: true, remaining: s.floor(have), resetAfter: nonNeg(s.fullAt(tokens, last) - now)}
	}
	if commit {
		s.store(st, after, at)
	}
	return outcome{allowed: true, remaining: s.floor(after), resetAfter: nonNeg(s.fullAt(after, at) - now)}
}

// floor is the whole number of tokens in t, within [0, burst].
func (s *tokenStep) floor(t float64) int64 {
	if !(t >= 1) {
		return 0
	}
	if t >= s.burstF {
		return s.burst
	}
	return int64(t)
}

// fullAt is the first instant from which a bucket of tokens at last holds
// exactly burst tokens, in the very arithmetic of refilled.
func (s *tokenStep) fullAt(tokens float64, last int64) int64 {
	if tokens >= s.burstF {
		return last
	}
	full := func(e int64) bool { return s.refilled(tokens, e) >= s.burstF }
	guess := s.nsFor(s.burstF - tokens)
	return last + firstTrue(0, guess, 2*maxSpan, full)
}

// passAt is the first instant ≥ now at which a take of cost (≤ burst) passes
// a bucket of tokens at last, when it does not pass at now.
func (s *tokenStep) passAt(tokens float64, last, now int64, cost float64) int64 {
	lo := max(0, now-last) // fails there
	pass := func(e int64) bool { return s.admits(s.refilled(tokens, e) - cost) }
	guess := max(lo+1, s.nsFor(cost-tokens))
	return last + firstTrue(lo+1, guess, max(lo+1, 2*maxSpan), pass)
}

// nsFor estimates the ns needed to refill n tokens.
func (s *tokenStep) nsFor(n float64) int64 {
	d := math.Ceil(n / s.limit * 1e9)
	if !(d >= 0) {
		return 0
	}
	if d > float64(2*maxSpan) {
		return 2 * maxSpan
	}
	return int64(d)
}

// refund puts back, at max(now, last), what the take still holds: its
// cost (capped at burst), less what the refill has replaced since. The
// take's tokens were the last of the bucket's deficit to be refilled (the
// bucket was full again at until), so at now it still holds the tokens
// refilled between now and until.
func (s *tokenStep) refund(st []int64, now, _, until, cost int64) {
	tokens, last := s.load(st)
	at := max(now, last)
	give := float64(min(cost, s.burst))
	if held := float64(time.Duration(until-now).Seconds() * s.limit); held < give {
		give = held
	}
	t := s.refilled(tokens, at-last) + give
	if t > s.burstF {
		t = s.burstF
	}
	s.store(st, t, at)
}

// idleAt is when the bucket is full again: from then on it holds exactly
// burst tokens, as the zero state does.
func (s *tokenStep) idleAt(st []int64) int64 {
	tokens, last := s.load(st)
	return s.fullAt(tokens, last)
}

// firstTrue returns the least x in [lo, hi] with p(x), for p monotone
// (false then true) and p(hi) true, starting from the estimate guess. It
// gallops from guess towards the boundary, then bisects: at most about 2·63
// calls of p, usually two.
func firstTrue(lo, guess, hi int64, p func(int64) bool) int64 {
	guess = min(max(guess, lo), hi)
	// Narrow the boundary to (bad, good]: p(bad) false or bad = lo−1, p(good) true.
	var bad, good int64
	if p(guess) {
		bad, good = lo-1, guess
		for step := int64(1); good > lo; step = min(2*step, 1<<61) {
			x := lo
			if good-lo > step {
				x = good - step
			}
			if !p(x) {
				bad = x
				break
			}
			good = x
		}
	} else {
		bad, good = guess, hi
		for step := int64(1); bad < hi; step = min(2*step, 1<<61) {
			x := hi
			if hi-bad > step {
				x = bad + step
			}
			if p(x) {
				good = x
				break
			}
			bad = x
		}
	}
	for good-bad > 1 {
		mid := bad + (good-bad)/2
		if p(mid) {
			good = mid
		} else {
			bad = mid
		}
	}
	return good
}
