package middleware_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blipStore decides on a memory store, but answers every peek as a Redis
// store in FailOpen mode answers a decision meeting a fault (a missed
// deadline): admitted, by its failure mode (core.SourceFallback).
type blipStore struct{ core.Store }

func (s blipStore) Bind(p *core.Policy) (store.Table, error) {
	t, err := s.Store.Bind(p)
	return blipTable{t}, err
}

type blipTable struct{ store.Table }

func (t blipTable) Do(ctx context.Context, req store.Request) (store.Decision, error) {
	if req.Op != store.OpPeek {
		return t.Table.Do(ctx, req)
	}
	d := store.Decision{At: req.Now, Source: store.SourceFallback}
	d.Outcomes[0] = store.Outcome{Allowed: true, Remaining: 10}
	return d, nil
}

// The outer limit's peek for its next admission met a store fault, and
// the store's failure mode answered it (FailOpen: admitted): the stacked
// refusal read that as the outer limit admitting now and told the inner
// limit's wait alone, 10 s, where a retry is refused by the outer limit
// (back on its store) until 87 s. A peek its store did not decide tells
// nothing of the outer limit: the wait falls back to its reset.
func TestAttackStackedPeekByTheFailureModeIsNoWait(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	mem, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	l, err := core.NewLimiter(core.MustPolicy("global", core.Limit{Name: "global",
		Algorithm: core.GCRA{Rate: core.Per(1000, 24*time.Hour), Burst: 10}}), core.WithStore(blipStore{mem}), core.WithClock(clk))
	require.NoError(t, err)
	outer, err := middleware.New(l, middleware.Options{Key: func(*http.Request) (string, error) { return "client", nil }})
	require.NoError(t, err)
	_, inner := stackedGCRA(t, clk, middleware.Options{})
	h := outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	for i := 1; i <= 9; i++ {
		require.Equal(t, http.StatusOK, getOnce(h).Code, "request %d", i)
	}
	wait := retryAfterOf(t, h)
	assert.NotEqual(t, "10", wait, "the inner limit's wait alone")
	assert.Equal(t, "864", wait, "the outer limit's reset: its next admission is unknown")
}
