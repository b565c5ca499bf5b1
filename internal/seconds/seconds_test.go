package seconds

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCeilAndPositive(t *testing.T) {
	cases := []struct {
		d              time.Duration
		ceil, positive int64
	}{
		{math.MinInt64, 0, 1},
		{-time.Second, 0, 1},
		{0, 0, 1},
		{1, 1, 1},
		{100 * time.Millisecond, 1, 1},
		{time.Second, 1, 1},
		{time.Second + 1, 2, 2},
		{2 * time.Second, 2, 2},
		{2001 * time.Millisecond, 3, 3},
		{math.MaxInt64 - 1, 9223372037, 9223372037}, // no overflow near the top
		{math.MaxInt64, 9223372037, 9223372037},
	}
	for _, c := range cases {
		assert.Equal(t, c.ceil, Ceil(c.d), "Ceil(%v)", c.d)
		assert.Equal(t, c.positive, Positive(c.d), "Positive(%v)", c.d)
	}
}

func TestEpochCeil(t *testing.T) {
	s := int64(time.Second)
	cases := []struct {
		at   int64
		d    time.Duration
		want int64
	}{
		{0, 0, 0},
		{0, 1, 1},
		{5 * s, 0, 5},
		{5*s + 1, 0, 6},
		{5*s + 400_000_000, 600_000_000, 6},
		{5*s + 400_000_001, 600_000_000, 7},
		{-1, 0, 0},
		{-s - 1, 0, -1},
		{-1, 2, 1},
		{5 * s, -time.Second, 5}, // a negative duration counts as 0
		{math.MaxInt64, math.MaxInt64, 18446744074},
		{math.MinInt64, 0, -9223372036},
		{math.MaxInt64 - s + 1, 0, 9223372036}, // the largest sum the quick path takes
		{math.MaxInt64 - s + 2, 0, 9223372036}, // and the smallest it leaves
		{math.MaxInt64 - s - 5, 6, 9223372036},
		{math.MaxInt64 - s - 5, 7, 9223372036},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, EpochCeil(c.at, c.d), "%d + %d", c.at, c.d)
	}
	// The quick sum agrees with the exact arithmetic of big integers.
	for _, at := range []int64{0, 1, s - 1, s, s + 1, 1_767_323_045*s + 7, math.MaxInt64 / 2, math.MaxInt64 - s, math.MaxInt64} {
		for _, d := range []int64{0, 1, s - 1, s, 86_400 * s, math.MaxInt64 / 2, math.MaxInt64 - s, math.MaxInt64} {
			sum := new(big.Int).Add(big.NewInt(at), big.NewInt(d))
			q, m := new(big.Int).DivMod(sum, big.NewInt(s), new(big.Int))
			if m.Sign() > 0 {
				q.Add(q, big.NewInt(1))
			}
			require.Equal(t, q.Int64(), EpochCeil(at, time.Duration(d)), "%d + %d", at, d)
		}
	}
}
