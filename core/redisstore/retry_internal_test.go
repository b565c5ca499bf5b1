package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// TestBatchRefundTwice: one refund sent twice within one pipelined batch
// call (the batch function) gives back once: the key's state is that of
// a key refunded once by a call of its own; both leave one marker, with a
// TTL covering the refund's hold.
func TestBatchRefundTwice(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	s, err := New(c, Options{Prefix: "bt:", Timeout: 30 * time.Second, CallerClock: true})
	require.NoError(t, err)
	defer s.Close()
	p := core.MustPolicy("bt", core.Limit{Name: "f", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour}})
	tb, err := s.Bind(p)
	require.NoError(t, err)
	tab := tb.(*table)
	require.NoError(t, s.loadLibrary(ctx))
	const now = int64(1_800_000_000_000_000_000) // ns
	refund := store.Request{Op: store.OpRefund, Key: "", Cost: 3, Now: now, Taken: now, RefundID: [2]uint64{7, 9}}
	refund.Holds[0] = int64(time.Hour)
	newCall := func(key string, req store.Request) *call {
		cl := &call{sc: tab.sc, done: make(chan struct{}, 1)}
		var taken any = int64(0)
		var rid *[2]uint64
		if req.Op == store.OpRefund {
			taken, rid = tab.refundArg(req), &req.RefundID
		}
		cl.keys = tab.keys(key, rid)
		cl.args = []any{opCodes[req.Op], req.Cost, req.Now / 1000, taken, tab.slack}
		return cl
	}
	take := store.Request{Op: store.OpTake, Key: "", Cost: 5, Now: now}
	var batch []*call
	for _, k := range []string{"once", "twice"} {
		batch = append(batch, newCall(k, take))
	}
	batch = append(batch, newCall("once", refund), newCall("twice", refund), newCall("twice", refund))
	require.Len(t, s.group(batch), 1, "one batch call")
	s.run(batch, nil)
	for i, cl := range batch {
		within.Recv(t, cl.done, "a batched call's end")
		require.NoError(t, cl.err, "call %d", i)
	}
	once, err := c.Get(ctx, tab.keys("once", nil)[0]).Result()
	require.NoError(t, err)
	twice, err := c.Get(ctx, tab.keys("twice", nil)[0]).Result()
	require.NoError(t, err)
	require.Equal(t, once, twice, "the state of one refund")
	for _, k := range []string{"once", "twice"} {
		ks := tab.keys(k, &refund.RefundID)
		for _, key := range ks {
			ttl, err := c.PTTL(ctx, key).Result()
			require.NoError(t, err)
			require.Positive(t, ttl, "%s has a TTL", key)
		}
		ttl, err := c.PTTL(ctx, ks[1]).Result()
		require.NoError(t, err)
		require.Greater(t, ttl, 59*time.Minute, "the marker outlives the refund's hold")
	}
}

// TestResetTwice: a reset whose command runs again after a take (a
// client's retry, late) forgets nothing more: the take stays counted.
func TestResetTwice(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	s, err := New(c, Options{Prefix: "rt:", Timeout: 30 * time.Second, CallerClock: true})
	require.NoError(t, err)
	defer s.Close()
	p := core.MustPolicy("rt", core.Limit{Name: "f", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour}})
	tb, err := s.Bind(p)
	require.NoError(t, err)
	tab := tb.(*table)
	require.NoError(t, s.loadLibrary(ctx))
	const now = int64(1_800_000_000_000_000_000) // ns
	rid := [2]uint64{3, 4}
	reset := &call{sc: tab.sc, keys: tab.keys("k", &rid), done: make(chan struct{}, 1)}
	reset.args = []any{"R", int64(0), now / 1000, tab.markerTTL(), tab.slack}
	take := func() int64 {
		r, err := tab.Do(ctx, store.Request{Op: store.OpTake, Key: "k", Cost: 4, Now: now})
		require.NoError(t, err)
		return r.Outcomes[0].Remaining
	}
	require.Equal(t, int64(6), take())
	for _, want := range []int64{6, 2} { // the first copy forgets, the second nothing
		s.run([]*call{reset}, nil)
		within.Recv(t, reset.done, "the reset's end")
		require.NoError(t, reset.err)
		require.Equal(t, want, take())
	}
	ttl, err := c.PTTL(ctx, reset.keys[1]).Result()
	require.NoError(t, err)
	require.Positive(t, ttl, "the marker has a TTL")
}
