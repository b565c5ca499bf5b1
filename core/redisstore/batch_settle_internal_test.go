package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestBatchFailedRequestSettlesNothing: on Redis TIME (LoadOnTime here), a
// request of a batch moved the states it read back for a clock that went
// back (settle) in the batch's cache, in place, before it could still fail
// (a refund's argument or marker, another limit's key): the request
// failed, its state stayed moved, with the seen it had, and the next
// request on the key moved it back again. Two failed refunds and a peek
// after a clock stepped back an hour took three hours off a debt of two:
// the peek admitted. It now moves it once, as single calls do.
func TestBatchFailedRequestSettlesNothing(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	require.NoError(t, LoadOnTime(ctx, c))
	sc := loadFunctions(t, c, core.MustPolicy("s", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 1}}))
	const t0, hour = int64(1_700_000_000_000_000), int64(time.Hour / time.Microsecond)
	for _, k := range []string{"s{a}:0", "b{a}:0"} {
		// A take an hour ahead: TAT t0 + 2 h, seen t0 + 1 h.
		require.NoError(t, fcall(ctx, c, sc, sc.fn, []string{k}, "T", int64(1), t0+hour, int64(0), int64(0)).Err())
	}
	// At t0 (the clock an hour back): two refunds that fail, then a peek.
	reqs := [][]any{{"F", int64(1), t0, "bad"}, {"F", int64(1), t0, "bad"}, {"P", int64(1), t0, int64(0)}}
	var want []any
	for _, r := range reqs {
		keys := []string{"s{a}:0"}
		if r[0] == "F" {
			keys = append(keys, "s{a}:f")
		}
		v, err := fcall(ctx, c, sc, sc.fn, keys, append(r, int64(0))...).Text()
		if err != nil {
			want = append(want, errText(err, "s"))
			continue
		}
		want = append(want, v)
	}
	got := batchReplies(t, fcall(ctx, c, sc, sc.batchFn, []string{"b{a}:0", "b{a}:f", "b{a}:0", "b{a}:f", "b{a}:0"},
		int64(0), "F", int64(1), t0, "bad", "F", int64(1), t0, "bad", "P", int64(1), t0, int64(0)), 3, sc.record, "b")
	allowed, ok := word(got[2].(string), 2)
	require.True(t, ok)
	require.Zero(t, allowed, "the peek after two failed refunds admits")
	require.Equal(t, want, got)
}
