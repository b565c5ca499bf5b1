package core

import "math/bits"

// divisor divides by a fixed d ≥ 1 with a multiplication and a shift
// instead of a division instruction, exactly for every dividend in
// [0, 2^61) (Granlund and Montgomery, "Division by invariant integers
// using multiplication", 1994, theorem 4.2: with N = 61, ℓ = ⌈log2 d⌉ and
// m = ⌊2^(N+ℓ)/d⌋ + 1, 2^(N+ℓ) < m·d ≤ 2^(N+ℓ) + d ≤ 2^(N+ℓ) + 2^ℓ, so
// ⌊n/d⌋ = ⌊m·n/2^(N+ℓ)⌋ for 0 ≤ n < 2^N). The GCRA steppers divide spans
// of at most maxSpan = 2^60 by their interval on every decision.
type divisor struct {
	m     uint64 // ⌊2^shift/d⌋ + 1 ≤ 2^62
	shift uint   // 61 + ⌈log2 d⌉
}

func newDivisor(d int64) divisor {
	l := uint(bits.Len64(uint64(d - 1))) // ⌈log2 d⌉
	shift := 61 + l
	var hi, lo uint64 // 2^shift
	if shift >= 64 {
		hi = 1 << (shift - 64) // 2^(ℓ−3) < d: Div64's quotient fits
	} else {
		lo = 1 << shift
	}
	q, _ := bits.Div64(hi, lo, uint64(d))
	return divisor{m: q + 1, shift: shift}
}

// div returns ⌊n/d⌋ for 0 ≤ n < 2^61.
func (v divisor) div(n int64) int64 {
	hi, lo := bits.Mul64(uint64(n), v.m)
	if v.shift >= 64 {
		return int64(hi >> (v.shift - 64))
	}
	return int64(hi<<(64-v.shift) | lo>>v.shift)
}
