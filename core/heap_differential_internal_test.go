package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestResetLogAsScannedClockBack extends TestResetLogAsScanned to small
// logs, many resets at one instant (ties at the cut), and clocks stepping
// back by up to three windows, below the floor. There the log no longer
// holds the keys the scan held (after a step back below the floor,
// forgetOlder drops every key at or below the floor, which the scan kept:
// the floor refuses their decisions either way), so its answers are held
// to what a reset log must do rather than to the scan's: a decision taken
// at or before its key's latest reset, while that reset is within its
// window of the latest instant seen, is forgotten, by both.
func TestResetLogAsScannedClockBack(t *testing.T) {
	t.Parallel()
	overflows, backs := 0, 0
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 9))
		limit, keys, window := 1+rng.IntN(16), uint64(1+rng.IntN(64)), int64(1+rng.IntN(50))
		r := resetLog{limit: limit}
		ref := refResetLog{at: map[uint64]int64{}, limit: limit}
		latest, seen := map[uint64]int64{}, int64(0)
		now := int64(rng.IntN(100))
		for i := range 1500 {
			switch rng.IntN(8) {
			case 0:
				now = max(0, now-rng.Int64N(3*window))
				backs++
			case 1:
				now += rng.Int64N(2 * window)
			case 2, 3, 4: // at the same instant
			default:
				now++
			}
			kh := rng.Uint64N(keys)
			seen, latest[kh] = max(seen, now), max(latest[kh], now)
			floor := ref.floor
			r.reset(kh, now, window)
			ref.reset(kh, now, window)
			if ref.floor != floor {
				overflows++
			}
			require.LessOrEqual(t, len(r.byAt), 2*limit+1)
			require.LessOrEqual(t, len(r.at), limit)
			for range 4 {
				kh, at := rng.Uint64N(keys), now-rng.Int64N(3*window)+window/2
				if T, ok := latest[kh]; ok && at <= T && T > seen-window {
					require.True(t, r.forgot(kh, at), "seed %d reset %d: key %d reset at %d, a decision at %d", seed, i, kh, T, at)
					require.True(t, ref.forgot(kh, at), "the scan: seed %d reset %d", seed, i)
				}
			}
		}
	}
	require.True(t, overflows > 100 && backs > 1000, "%d overflows, %d steps back", overflows, backs)
}

// TestLowerLogAsScannedTiesClockBack extends TestLowerLogAsScanned to
// small shards, refunds at one instant, steps back by up to three
// windows, and refunds whose position is unknown (0, failedPos): the
// shard holds what the scan held, entry for entry, after each refund.
func TestLowerLogAsScannedTiesClockBack(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		perShard, keys, window := 1+rng.IntN(16), uint64(1+rng.IntN(40)), int64(1+rng.IntN(50))
		var sh, ref lowerShard
		at := int64(rng.IntN(100))
		for i := range 1500 {
			switch rng.IntN(8) {
			case 0:
				at = max(0, at-rng.Int64N(3*window))
			case 1:
				at += rng.Int64N(2 * window)
			case 2, 3, 4:
			default:
				at++
			}
			pos := uint64(i + 1)
			switch rng.IntN(20) {
			case 0:
				pos = 0
			case 1:
				pos = failedPos
			}
			kh, e := rng.Uint64N(keys), lowering{pos: pos, at: at}
			sh.seq.Store(uint64(i))
			ref.seq.Store(uint64(i))
			sh.record(kh, e, window, perShard)
			recordAsScanned(&ref, kh, e, window, perShard)
			require.Equal(t, ref.n, sh.n, "seed %d refund %d", seed, i)
			require.Equal(t, ref.forgot, sh.forgot, "seed %d refund %d", seed, i)
			require.Equal(t, ref.keys, sh.keys, "seed %d refund %d", seed, i)
			require.LessOrEqual(t, len(sh.byAt), 2*perShard+1)
		}
	}
}

// checkOverrideHeaps: a shard holds at most max entries, its heaps at most
// twice as many records, and each answered entry has a record of its
// expiry in the heap of its kind.
func checkOverrideHeaps(t *testing.T, s *overrideShard) {
	t.Helper()
	require.LessOrEqual(t, len(s.m), s.max)
	require.LessOrEqual(t, len(s.defs)+len(s.overs), 2*s.max+1)
	for _, e := range s.m {
		if !e.done {
			continue
		}
		h := s.overs
		if e.lim == s.def {
			h = s.defs
		}
		found := false
		for _, r := range h {
			found = found || r.key == e && r.until == e.exp
		}
		require.True(t, found, "an answered entry without its record")
	}
}

// TestOverrideRoomModel: whatever the answers (the default's, overrides',
// failures that put an expired entry back) and a clock stepping back, a
// full shard forgets the default's entry soonest to expire, else an
// expired override, never a live override nor an entry being asked for.
func TestOverrideRoomModel(t *testing.T) {
	t.Parallel()
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 5))
		def, ov1, ov2 := &Limiter{}, &Limiter{}, &Limiter{}
		var c overrideCache
		c.init(overrideShards*(1+rng.IntN(6)), def)
		s := &c.shards[0]
		keys := shardKeys(&c, 0, "k", 3*s.max+2)
		now := int64(100)
		for i := range 800 {
			switch rng.IntN(6) {
			case 0:
				now = max(0, now-rng.Int64N(30))
			case 1, 2:
				now += rng.Int64N(10)
			}
			before := make(map[overrideKey]*overrideEntry, len(s.m))
			for k, e := range s.m {
				before[k] = e
			}
			key := keys[rng.IntN(len(keys))]
			nested := func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
				return def, time.Duration(rng.IntN(20)), nil
			}
			answer := func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
				switch rng.IntN(5) {
				case 0:
					// Other keys of the shard asked meanwhile make
					// room, and may drop the expired entry's record.
					for range rng.IntN(2 * s.max) {
						if k := keys[rng.IntN(len(keys))]; k != key { // key's own would wait for this answer
							_, _ = c.get(context.Background(), k, now, nested)
						}
					}
					return nil, 0, errors.New("provider down")
				case 1, 2:
					return def, time.Duration(rng.IntN(20)), nil
				case 3:
					return ov1, time.Duration(rng.IntN(20)), nil
				}
				return ov2, time.Duration(rng.IntN(40)), nil
			}
			_, err := c.get(context.Background(), key, now, answer)
			checkOverrideHeaps(t, s)
			if err != nil {
				continue // others' entries went meanwhile: not checked
			}
			for k, e := range before {
				if _, ok := s.m[k]; ok {
					continue
				}
				require.True(t, e.done, "seed %d step %d: an entry being asked for went", seed, i)
				for _, o := range before {
					if e.lim == def {
						require.False(t, o.done && o.lim == def && o.exp < e.exp, "seed %d step %d: a default's entry went before one sooner", seed, i)
					} else {
						require.False(t, o.done && o.lim == def, "seed %d step %d: an override went before a default's entry", seed, i)
					}
				}
				require.True(t, e.lim == def || now >= e.exp, "seed %d step %d: a live override went", seed, i)
			}
			checkOverrideHeaps(t, s)
		}
	}
}

// TestOverrideCacheHeapsConcurrent: concurrent gets, answers given,
// failed and cancelled, with a clock that wanders, leave each shard's
// heaps holding every answered entry (run under -race).
func TestOverrideCacheHeapsConcurrent(t *testing.T) {
	t.Parallel()
	def, ov := &Limiter{}, &Limiter{}
	var c overrideCache
	c.init(overrideShards*8, def)
	var wg sync.WaitGroup
	var mu sync.Mutex
	clock := int64(0)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 3000 {
				mu.Lock()
				clock = max(0, clock+rng.Int64N(3)-1)
				now := clock
				mu.Unlock()
				ctx, cancel := context.WithCancel(context.Background())
				_, _ = c.get(ctx, fmt.Sprint("k", rng.IntN(300)), now,
					func(ctx context.Context, _ string, _ *Limiter, _ int64) (*Limiter, time.Duration, error) {
						switch rng.IntN(4) {
						case 0:
							cancel()
							return nil, 0, ctx.Err()
						case 1:
							return def, time.Duration(rng.IntN(5)), nil
						}
						return ov, time.Duration(rng.IntN(10)), nil
					})
				cancel()
			}
		}()
	}
	wg.Wait()
	for i := range c.shards {
		checkOverrideHeaps(t, &c.shards[i])
	}
}
