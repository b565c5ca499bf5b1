package core

import "time"

// An in-memory table keeps its state in the encoding of the policy it was
// first bound for. Two algorithms' encodings depend on their parameters: a
// TokenBucket keeps its tokens' bits XOR those of float64(Burst), a WarmUp
// its stored permits' bits XOR those of its maximum, so that the all-zero
// state is a full (cold) key. A policy that changes those parameters is
// decided through an xorRecode of its stepper: the state is translated
// into the new stepper's encoding before each step and back after it.

// recodeWords is the most words of state an xorRecode translates.
const recodeWords = 2

// recoded returns p with each stepper whose encoding differs from base's
// wrapped in an xorRecode; p itself when none does. Either policy may be a
// limiter's recoded one ([Limiter.Policy] returns it): p's steppers are
// unwrapped first, and base's encoding is the one its steppers keep state
// in, wrapped or not.
func recoded(base, p *Policy) *Policy {
	var q *Policy
	for i := range p.limits {
		n := plainStep(p.limits[i].step)
		word, nbits := encoding(n)
		_, abits := encoding(base.limits[i].step)
		s := n
		if abits != nbits {
			s = &xorRecode{stepper: n, word: word, delta: int64(abits ^ nbits)}
		}
		if s == p.limits[i].step {
			continue
		}
		if q == nil {
			c := *p
			c.limits = append([]limitSpec(nil), p.limits...)
			q = &c
		}
		q.limits[i].step = s
	}
	if q == nil {
		return p
	}
	return q
}

// encoding returns the word of s's state whose encoding depends on the
// algorithm's parameters, and the bits that encoding XORs it with: the
// float64 bits of a TokenBucket's Burst, of a WarmUp's maximum, those of
// the table's encoding for an xorRecode; (0, 0) for the other algorithms.
func encoding(s stepper) (int, uint64) {
	switch s := s.(type) {
	case *tokenStep:
		return 0, s.bits
	case *warmStep:
		return 1, s.maxBits
	case *xorRecode:
		word, bits := encoding(s.stepper)
		return word, bits ^ uint64(s.delta)
	}
	return 0, 0
}

// plainStep returns the stepper s recodes, or s.
func plainStep(s stepper) stepper {
	if r, ok := s.(*xorRecode); ok {
		return r.stepper
	}
	return s
}

// xorRecode decides with stepper on a state kept in another encoding:
// word of the state is the stepper's XOR delta, except in the all-zero
// state (a key never seen, in both encodings).
type xorRecode struct {
	stepper
	word  int
	delta int64
}

// in copies st into buf in the stepper's encoding.
func (r *xorRecode) in(st []int64, buf *[recodeWords]int64) []int64 {
	b := buf[:len(st)]
	copy(b, st)
	if !allZero(b) {
		b[r.word] ^= r.delta
	}
	return b
}

// out writes b, in the stepper's encoding, into st in the table's.
func (r *xorRecode) out(b, st []int64) {
	if !allZero(b) {
		b[r.word] ^= r.delta
	}
	copy(st, b)
}

func (r *xorRecode) take(st []int64, now, cost int64, commit bool) outcome {
	var buf [recodeWords]int64
	b := r.in(st, &buf)
	o := r.stepper.take(b, now, cost, commit)
	if commit && o.allowed {
		r.out(b, st)
	}
	return o
}

func (r *xorRecode) denied(st []int64, now, cost int64, commit bool) (outcome, bool) {
	var buf [recodeWords]int64
	b := r.in(st, &buf)
	o, ok := r.stepper.denied(b, now, cost, commit)
	if commit && ok {
		r.out(b, st)
	}
	return o, ok
}

func (r *xorRecode) refund(st []int64, now, taken, until, cost int64) {
	var buf [recodeWords]int64
	b := r.in(st, &buf)
	r.stepper.refund(b, now, taken, until, cost)
	r.out(b, st)
}

func (r *xorRecode) idleAt(st []int64) int64 {
	var buf [recodeWords]int64
	return r.stepper.idleAt(r.in(st, &buf))
}

func (r *xorRecode) forgetCost(st []int64, now int64) int64 {
	var buf [recodeWords]int64
	return r.stepper.forgetCost(r.in(st, &buf), now)
}

func (r *xorRecode) quota() (int64, time.Duration) { return r.stepper.quota() }
