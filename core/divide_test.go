package core

import (
	"math/rand/v2"
	"testing"
)

// The multiplicative division divides exactly as the division instruction
// for every divisor and every dividend below 2^61: at the edges (0, around
// multiples of d, the largest dividend) and at random, for small divisors,
// powers of two and their neighbours, and random ones up to maxSpan.
func TestDivisorExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ds []int64
	for d := int64(1); d <= 1024; d++ {
		ds = append(ds, d)
	}
	for k := 1; k <= 60; k++ {
		ds = append(ds, 1<<k-1, 1<<k, 1<<k+1)
	}
	for range 2000 {
		ds = append(ds, 1+rng.Int64N(maxSpan), 1+rng.Int64N(1<<20), 1+rng.Int64N(int64(1e12)))
	}
	const top = int64(1)<<61 - 1
	for _, d := range ds {
		v := newDivisor(d)
		check := func(n int64) {
			if n < 0 || n > top {
				return
			}
			if got, want := v.div(n), n/d; got != want {
				t.Fatalf("%d / %d: got %d, want %d", n, d, got, want)
			}
		}
		for _, n := range []int64{0, 1, d - 1, d, d + 1, 2*d - 1, 2 * d, top, top - 1, top / d * d, top/d*d - 1, maxSpan, maxSpan - 1} {
			check(n)
		}
		for range 64 {
			n := rng.Int64N(top + 1)
			check(n)
			check(n / d * d)
			check(n/d*d - 1)
		}
	}
}
