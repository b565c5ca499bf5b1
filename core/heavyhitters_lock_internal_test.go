package core

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTopKeysMergesWithoutTheLock: every take of a limiter with
// WithTopKeys holds the sketch's lock, and top held it while it merged
// every interval's keys (with Capacity 65,536 and Intervals 60, takes
// waited about 4.9 s behind one GET of middleware/inspect's /top; found by
// a review). It now holds it only to copy one interval: while it merges,
// the lock is free, which the test asserts from inside the merge, and the
// result is the same.
func TestTopKeysMergesWithoutTheLock(t *testing.T) {
	t.Parallel()
	h := newTestHH(t, TopKeysOptions{Capacity: 8, Intervals: 4, Span: 4 * time.Second})
	at := int64(time.Second) * 1000
	for i := range 4 {
		for k := range 5 {
			h.add(string(rune('a'+k)), at+int64(i)*int64(time.Second), k%2 == 0)
		}
	}
	merges := 0
	h.merging = func() {
		merges++
		require.True(t, h.mu.TryLock(), "the sketch's lock is free while top merges")
		h.mu.Unlock()
	}
	top := h.top(10, at+3*int64(time.Second))
	require.Equal(t, 4, merges)
	require.Len(t, top.Keys, 5)
	require.EqualValues(t, 20, top.Takes)
}
