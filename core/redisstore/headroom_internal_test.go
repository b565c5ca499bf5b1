package redisstore

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/redistest"
)

// TestTTLHeadroom: a new TTL of a GCRA key runs past its recovery by an
// eighth of its span when the key is new to Redis, and by its whole span
// when it is taken again while it lives (see extra in step.lua); a TTL
// that covers the new recovery is kept. The take function, the single
// decision function and the batch function agree.
func TestTTLHeadroom(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	sc := loadFunctions(t, c, core.MustPolicy("headroom", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 100}}))
	const t0 = int64(1_700_000_000_000_000)
	// Takes of 1 (1 s each) at t0 + at µs: the key's exp word (in µs, a
	// ms short of its TTL's end) after each.
	steps := []struct{ at, exp int64 }{
		{0, t0 + (1_000+125-1)*1000},                   // new: span 1 s, + 1/8
		{500_000, t0 + 500_000 + (1_500+1_500-1)*1000}, // span 1.5 s, twice
		{1_000_000, t0 + 500_000 + (1_500+1_500-1)*1000},
		// Recovery at t0 + 4 s, past the TTL's end: span 2.9 s, twice.
		{1_100_000, t0 + 1_100_000 + (2_900+2_900-1)*1000},
	}
	exp := func(key string) int64 {
		v, err := c.Get(ctx, key).Bytes()
		require.NoError(t, err)
		require.Len(t, v, 32)
		return int64(math.Float64frombits(binary.LittleEndian.Uint64(v[16:])))
	}
	for _, fn := range []string{"take", "main", "batch"} {
		key := "h{" + fn + "}:0"
		for i, s := range steps {
			now := t0 + s.at
			var err error
			switch fn {
			case "take":
				err = fcall(ctx, c, sc, sc.takeFn, []string{key}, int64(1), now).Err()
			case "main":
				err = fcall(ctx, c, sc, sc.fn, []string{key}, "T", int64(1), now, int64(0), int64(0)).Err()
			case "batch":
				err = fcall(ctx, c, sc, sc.batchFn, []string{key}, int64(0), "T", int64(1), now, int64(0)).Err()
			}
			require.NoError(t, err, "%s take %d", fn, i)
			require.Equal(t, s.exp, exp(key), "%s take %d: exp", fn, i)
		}
		// A take of 0 whose recovery the TTL covers keeps it.
		require.NoError(t, fcall(ctx, c, sc, sc.takeFn, []string{key}, int64(0), t0+1_200_000).Err())
		require.Equal(t, steps[3].exp, exp(key), "%s: a covering TTL is kept", fn)
		ttl, err := c.PTTL(ctx, key).Result()
		require.NoError(t, err)
		require.Positive(t, ttl)
	}
}
