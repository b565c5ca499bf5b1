package seconds

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
	}
	for _, c := range cases {
		assert.Equal(t, c.want, EpochCeil(c.at, c.d), "%d + %d", c.at, c.d)
	}
}
