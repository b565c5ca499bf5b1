package core_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hangUpStore is a Store whose takes wait until the caller's context ends,
// and fail with its error (a Redis round trip its client hung up during);
// entered is told of each take reaching it.
type hangUpStore struct{ entered chan struct{} }

func (s hangUpStore) Bind(*core.Policy) (store.Table, error) { return s, nil }

func (s hangUpStore) Do(ctx context.Context, _ store.Request) (store.Decision, error) {
	s.entered <- struct{}{}
	<-ctx.Done()
	return store.Decision{}, ctx.Err()
}

// TestAttackClientHangUpIsNoStoreError: a client that hangs up while its
// take is in the store's round trip made the observer count a failed
// decision: 100 requests reset by their clients were 100 decisions of
// result "error" (promobserve's floodgate_decisions_total{result="error"},
// otelobserve's "error"), the figure an operator alerts on as a store
// fault, at an attacker's will. Such a take is now reported as abandoned
// (100, none failed): the store may have applied it, so hang-ups that
// spend a key's budget stay visible; a deadline that ends the take is
// still a failed decision (1).
func TestAttackClientHangUpIsNoStoreError(t *testing.T) {
	t.Parallel()
	s := hangUpStore{entered: make(chan struct{})}
	obs := &coretest.Observer{}
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 10}}),
		core.WithStore(s), core.WithObserver(obs), core.WithClock(coretest.NewClock(t0)))
	require.NoError(t, err)
	for range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := l.Allow(ctx, "k")
			done <- err
		}()
		<-s.entered
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	}
	require.Len(t, obs.Decisions(), 100)
	for _, d := range obs.Decisions() {
		require.Equal(t, core.VerdictAbandoned, d.Verdict, "a client gone is no store fault")
		require.Equal(t, "abandoned", d.Verdict.String())
	}

	ctx := &deadlineCtx{Context: context.Background(), done: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := l.Allow(ctx, "k")
		done <- err
	}()
	<-s.entered
	close(ctx.done) // as a server's deadline would end it
	require.ErrorIs(t, <-done, context.DeadlineExceeded)
	ds := obs.Decisions()
	require.Len(t, ds, 101)
	assert.Equal(t, core.VerdictFailed, ds[100].Verdict, "a deadline is a failed decision")
}

// deadlineCtx is a context that ends, with DeadlineExceeded, when done is
// closed: a deadline on no clock.
type deadlineCtx struct {
	context.Context
	done chan struct{}
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

func (c *deadlineCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestAttackHangUpsShowInTopKeys: a client that hangs up during every
// take's round trip (the store may have applied each) was missing from
// Limiter.TopKeys, whose takes counted only decisions that completed: 50
// such takes of "hider" left it out of the top keys, and out of the
// interval's Takes, while 5 completed takes of "plain" led them. They are
// now counted apart, as Abandoned: "hider" leads with 50.
func TestAttackHangUpsShowInTopKeys(t *testing.T) {
	t.Parallel()
	s := &switchStore{hang: hangUpStore{entered: make(chan struct{})}}
	ms, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	s.mem = ms
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 10}}),
		core.WithStore(s), core.WithTopKeys(core.TopKeysOptions{}), core.WithClock(coretest.NewClock(t0)))
	require.NoError(t, err)
	for range 5 {
		_, err := l.Allow(context.Background(), "plain")
		require.NoError(t, err)
	}
	s.hanging.Store(true)
	for range 50 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := l.Allow(ctx, "hider")
			done <- err
		}()
		<-s.hang.entered
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	}
	top, ok := l.TopKeys(2)
	require.True(t, ok)
	require.Len(t, top.Keys, 2)
	assert.Equal(t, int64(55), top.Takes)
	assert.Equal(t, core.KeyCount{Key: "hider", Count: 50, Abandoned: 50}, top.Keys[0])
	assert.Equal(t, core.KeyCount{Key: "plain", Count: 5, Admitted: 5}, top.Keys[1])
}

// switchStore decides on mem until hanging is set, then hangs up as hang.
type switchStore struct {
	hang    hangUpStore
	mem     core.Store
	hanging atomic.Bool
}

func (s *switchStore) Bind(p *core.Policy) (store.Table, error) {
	mt, err := s.mem.Bind(p)
	if err != nil {
		return nil, err
	}
	return switchTable{s, mt}, nil
}

type switchTable struct {
	s   *switchStore
	mem store.Table
}

func (t switchTable) Do(ctx context.Context, req store.Request) (store.Decision, error) {
	if t.s.hanging.Load() {
		return t.s.hang.Do(ctx, req)
	}
	return t.mem.Do(ctx, req)
}
