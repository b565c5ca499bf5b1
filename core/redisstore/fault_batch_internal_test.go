package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// TestBatchConflictIsolated: in one pipelined batch call, a key holding
// another type fails its own decision with WRONGTYPE only; its neighbours
// are decided, and the breaker hears an answer, not a fault.
func TestBatchConflictIsolated(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	s, err := New(c, Options{Prefix: "iso:", Timeout: 30 * time.Second}) // a bound no loaded machine reaches
	require.NoError(t, err)
	defer s.Close()
	tb, err := s.Bind(core.MustPolicy("iso", core.Limit{Name: "i", Algorithm: core.GCRA{Rate: core.PerSecond(10)}}))
	require.NoError(t, err)
	tab := tb.(*table)
	require.NoError(t, s.loadLibrary(ctx))
	var batch []*call
	for _, k := range []string{"a", "b", "c"} {
		cl := &call{sc: tab.sc, keys: tab.keys(k, nil), done: make(chan struct{}, 1)}
		cl.args = []any{"T", int64(1), int64(-1), int64(0), tab.slack}
		batch = append(batch, cl)
	}
	require.NoError(t, c.LPush(ctx, batch[1].keys[0], "x").Err())
	s.run(batch, nil)
	for i, cl := range batch {
		within.Recv(t, cl.done, "a batched call's end")
		if i == 1 {
			require.Equal(t, classConflict, classify(cl.err), "%v", cl.err)
			continue
		}
		require.NoError(t, cl.err, "call %d", i)
		require.NotEmpty(t, cl.reply)
	}
	require.False(t, s.Down())
	require.Zero(t, s.Stats().Faults)
}
