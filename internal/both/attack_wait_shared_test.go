package both_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The wait kept beside a denial hint is the hint's part's and key's, but
// it covers the other parts of the Pair that computed it, for its cost:
// a hinted denial by a Pair of other parts, or of another cost, read it
// as its own. A route spent for 10 s (a) is charged with one spent for a
// minute (b), and also, in another spelling, with one that admits (c):
// after a denial of a with c (wait 10 s, kept), a denial of a with b told
// 10 s, and a client retrying then was denied by b for 50 s more; a cost
// of 2 on a with a route that admits one more (but not two for a minute)
// told the 10 s kept for a cost of 1. Each now waits for its own parts.
func TestAttackPairHintedDenialWaitsForItsOwnParts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fixed := func(clk *coretest.Clock, quota int64, w time.Duration) *core.Limiter {
		l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p",
			Algorithm: core.FixedWindow{Quota: quota, Window: w}}), core.WithClock(clk))
		require.NoError(t, err)
		return l
	}
	deny := func(t *testing.T, p interface {
		AllowN(context.Context, string, int64) (core.Result, error)
	}, cost int64) time.Duration {
		t.Helper()
		res, err := p.AllowN(ctx, "k", cost)
		require.NoError(t, err)
		require.False(t, res.Allowed)
		return res.RetryAfter
	}
	t.Run("a Pair of other parts", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(instant())
		a, b, c := fixed(clk, 1, 10*time.Second), fixed(clk, 1, time.Minute), fixed(clk, 100, time.Minute)
		res, err := pair(t, a, "a", b, "b").AllowN(ctx, "k", 1)
		require.NoError(t, err)
		require.True(t, res.Allowed)
		assert.Equal(t, 10*time.Second, deny(t, pair(t, a, "a", c, "c"), 1), "c admits: a's wait")
		assert.Equal(t, time.Minute, deny(t, pair(t, a, "a", b, "b"), 1), "b denies for a minute")
	})
	t.Run("another cost", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(instant())
		a, b := fixed(clk, 5, 10*time.Second), fixed(clk, 2, time.Minute)
		_, err := a.AllowN(ctx, "1:ak", 5)
		require.NoError(t, err)
		_, err = b.AllowN(ctx, "1:bk", 1)
		require.NoError(t, err)
		assert.Equal(t, 10*time.Second, deny(t, pair(t, a, "a", b, "b"), 1), "b admits one more")
		assert.Equal(t, time.Minute, deny(t, pair(t, a, "a", b, "b"), 2), "b admits two in a minute")
	})
	t.Run("alternating Pairs each peek once", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(instant())
		a := fixed(clk, 1, time.Minute)
		b, c := &peekCounter{Limiter: fixed(clk, 100, time.Hour)}, &peekCounter{Limiter: fixed(clk, 100, time.Hour)}
		_, err := a.AllowN(ctx, "1:ak", 1)
		require.NoError(t, err)
		for range 10 {
			deny(t, pair(t, a, "a", b, "b"), 1)
			deny(t, pair(t, a, "a", c, "c"), 1)
		}
		assert.Equal(t, 1, b.peeks)
		assert.Equal(t, 1, c.peeks)
	})
}

// blipStore decides on a memory store, but answers its first blips peeks
// as a Redis store in FailOpen mode answers a decision meeting a fault:
// admitted, by its failure mode (core.SourceFallback).
type blipStore struct {
	core.Store
	blips *atomic.Int64
}

func (s blipStore) Bind(p *core.Policy) (store.Table, error) {
	t, err := s.Store.Bind(p)
	return blipTable{t, s.blips}, err
}

type blipTable struct {
	store.Table
	blips *atomic.Int64
}

func (t blipTable) Do(ctx context.Context, req store.Request) (store.Decision, error) {
	if req.Op != store.OpPeek || t.blips.Add(-1) < 0 {
		return t.Table.Do(ctx, req)
	}
	d := store.Decision{At: req.Now, Source: store.SourceFallback}
	d.Outcomes[0] = store.Outcome{Allowed: true, Remaining: 1}
	return d, nil
}

// A peek of the other part met a store fault on the first denial, and the
// store's failure mode answered it (FailOpen: admitted). The Pair kept
// "the other part admits now" beside the hint, and the denials that
// followed, its store back, still told the denying part's wait alone
// (10 s) where the other part denies for a minute. A peek the store did
// not decide is not kept: the next denial peeks again.
func TestAttackPairKeepsNoWaitTheFailureModeTold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(instant())
	a, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p",
		Algorithm: core.FixedWindow{Quota: 1, Window: 10 * time.Second}}), core.WithClock(clk))
	require.NoError(t, err)
	mem, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	blips := &atomic.Int64{}
	b, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p",
		Algorithm: core.FixedWindow{Quota: 1, Window: time.Minute}}), core.WithStore(blipStore{mem, blips}), core.WithClock(clk))
	require.NoError(t, err)
	res, err := pair(t, a, "a", b, "b").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.True(t, res.Allowed)
	blips.Store(1)
	res, err = pair(t, a, "a", b, "b").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.False(t, res.Allowed)
	assert.Equal(t, 10*time.Second, res.RetryAfter, "the other part not told")
	res, err = pair(t, a, "a", b, "b").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.False(t, res.Allowed)
	assert.Equal(t, time.Minute, res.RetryAfter, "its store back")
}
