package slidingwindow_test

import (
	"math/rand/v2"
	"testing"

	"github.com/floodgate-go/floodgate/internal/slidingwindow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWeighted(t *testing.T) {
	c := slidingwindow.Counter{Limit: 10, Window: 1000}
	for _, tc := range []struct {
		name             string
		prev, rest, want int64
	}{
		{"whole window", 10, 1000, 10},
		{"half, exact", 10, 500, 5},
		{"rounded up", 3, 500, 2},
		{"nothing left", 10, 1, 1},
		{"no prev", 0, 700, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, c.Weighted(tc.prev, tc.rest))
		})
	}
	// No overflow where prev·rest exceeds 64 bits.
	big := slidingwindow.Counter{Limit: 1 << 62, Window: 1 << 62}
	assert.Equal(t, int64(1<<61), big.Weighted(1<<62, 1<<61))
}

// TestFirstAdmitIsFirst checks, on random counts, that FirstAdmit is the
// first instant at which the estimate admits cost, against a scan of
// every instant of the two windows ahead.
func TestFirstAdmitIsFirst(t *testing.T) {
	c := slidingwindow.Counter{Limit: 7, Window: 40}
	rng := rand.New(rand.NewPCG(1, 2))
	admits := func(prev, curr, start, at, cost int64) bool {
		if at >= start+c.Window { // the window moved on
			prev, curr, start = curr, 0, start+c.Window
		}
		if at >= start+c.Window {
			prev, curr, start = 0, 0, start+c.Window
		}
		return curr+c.Weighted(prev, start+c.Window-at)+cost <= c.Limit
	}
	for range 2000 {
		prev, curr, cost := rng.Int64N(c.Limit+1), rng.Int64N(c.Limit+1), 1+rng.Int64N(c.Limit)
		const start = 400
		got := c.FirstAdmit(prev, curr, start, cost)
		require.True(t, admits(prev, curr, start, got, cost), "prev %d curr %d cost %d: %d", prev, curr, cost, got)
		for at := int64(start); at < got; at++ {
			require.False(t, admits(prev, curr, start, at, cost), "prev %d curr %d cost %d: %d admits before %d", prev, curr, cost, at, got)
		}
	}
}

func TestMinElapsed(t *testing.T) {
	c := slidingwindow.Counter{Limit: 10, Window: 100}
	assert.Equal(t, int64(0), c.MinElapsed(3, 5), "prev within room")
	assert.Equal(t, int64(50), c.MinElapsed(10, 5))
	assert.Equal(t, int64(100), c.MinElapsed(10, 0), "no room in the window")
}
