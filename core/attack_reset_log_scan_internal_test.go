package core

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackResetLogFullRescans: a full reset log (maxResets keys reset
// within a refund window) made room for a new key by looking at every
// key it held for those whose window had passed, once for each instant
// one passed. A client resetting keys about as fast as their windows pass
// (a login route resetting each success's key) had each reset look at all
// 4,096, under the lock every refund of the limiter waits for: 64 resets
// looked at 262,144 entries. The keys are now also kept in order of their
// resets, and only those whose window passed are looked at: one a reset.
func TestAttackResetLogFullRescans(t *testing.T) {
	t.Parallel()
	const window, resets = maxResets, 64
	var r resetLog
	for at := int64(1); at <= maxResets; at++ { // full, a key a step
		r.reset(uint64(at), at, window)
	}
	r.visited = 0
	for at := int64(maxResets + 1); at <= maxResets+resets; at++ {
		r.reset(uint64(at), at, window)
		require.Len(t, r.at, maxResets, "a key's window passes at each step")
	}
	t.Logf("%d entries looked at for %d resets", r.visited, resets)
	assert.LessOrEqual(t, r.visited, 2*resets, "entries looked at to make room, for %d resets", resets)
	for at := int64(resets + 1); at <= maxResets+resets; at++ {
		require.True(t, r.forgot(uint64(at), at), "a decision of key %d at its reset, within its window", at)
	}
	assert.Zero(t, r.floor, "no key forgotten within its window")
	assert.False(t, r.forgot(0, 1), "a decision of a key never reset")

	// One key reset again and again leaves stale entries: they are
	// dropped, never more than twice the bound, and the key's latest
	// reset is kept.
	var one resetLog
	for at := int64(1); at <= 3*maxResets; at++ {
		one.reset(7, at, window)
	}
	require.Len(t, one.at, 1)
	assert.True(t, one.forgot(7, 3*maxResets) && !one.forgot(7, 3*maxResets+1))
	assert.LessOrEqual(t, len(one.byAt), 2*maxResets)
}

// refResetLog is resetLog as it was, scanning its keys: the reference
// TestResetLogAsScanned compares it with.
type refResetLog struct {
	at    map[uint64]int64
	floor int64
	limit int
}

func (r *refResetLog) reset(kh uint64, now, window int64) {
	if _, ok := r.at[kh]; !ok && len(r.at) >= r.limit {
		for k, at := range r.at {
			if now-at >= window {
				delete(r.at, k)
			}
		}
		if len(r.at) >= r.limit {
			ats := make([]int64, 0, len(r.at))
			for _, at := range r.at {
				ats = append(ats, at)
			}
			slices.Sort(ats)
			cut := ats[(len(ats)-1)/2]
			for k, at := range r.at {
				if at <= cut {
					delete(r.at, k)
				}
			}
			r.floor = max(r.floor, cut)
		}
	}
	r.at[kh] = max(r.at[kh], now)
}

func (r *refResetLog) forgot(kh uint64, at int64) bool {
	t, ok := r.at[kh]
	return at <= r.floor || ok && at <= t
}

// TestResetLogAsScanned: the log answers forgot as the scan it replaces
// did, for keys reset again, windows passing, the log overflowing and a
// clock that steps back.
func TestResetLogAsScanned(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const limit, keys, window = 64, 256, 100
	r := resetLog{limit: limit}
	ref := refResetLog{at: map[uint64]int64{}, limit: limit}
	now, dropped, overflows := int64(10), 0, 0
	for i := range 4000 {
		switch rng.IntN(16) {
		case 0:
			now = max(0, now-rng.Int64N(20)) // back
		case 1:
			now += rng.Int64N(window) // a pause
		default:
			now += rng.Int64N(2)
		}
		kh := rng.Uint64N(keys)
		n, floor := len(ref.at), ref.floor
		r.reset(kh, now, window)
		ref.reset(kh, now, window)
		if ref.floor != floor {
			overflows++
		} else if len(ref.at) < n+1 && n == limit {
			dropped++
		}
		for range 4 {
			kh, at := rng.Uint64N(keys), now-rng.Int64N(2*window)
			require.Equal(t, ref.forgot(kh, at), r.forgot(kh, at), "reset %d: key %d at %d", i, kh, at)
		}
	}
	require.Equal(t, ref.floor, r.floor)
	require.Equal(t, ref.at, r.at)
	require.LessOrEqual(t, len(r.byAt), 2*limit)
	t.Logf("%d overflows, %d resets that found windows passed", overflows, dropped)
	require.True(t, overflows > 10 && dropped > 10, "%d overflows, %d resets that found windows passed", overflows, dropped)
}
