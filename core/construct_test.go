package core_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Constructors refuse nil, typed-nil and zero essentials with an error
// wrapping ErrInvalidConfig, instead of panicking then or at the first
// decision.
func TestConstructorsRefuseNilAndZero(t *testing.T) {
	t.Parallel()
	p := core.MustPolicy("p", core.Limit{Algorithm: core.GCRA{Rate: core.PerSecond(1)}})
	for name, build := range map[string]func() error{
		"NewLimiter(nil policy)":  func() error { _, err := core.NewLimiter(nil); return err },
		"NewLimiter(zero policy)": func() error { _, err := core.NewLimiter(&core.Policy{}); return err },
		"NewLimiter(nil option)":  func() error { _, err := core.NewLimiter(p, nil); return err },
		"WithStore(typed nil)": func() error {
			_, err := core.NewLimiter(p, core.WithStore((*core.MemoryStore)(nil)))
			return err
		},
		"WithStore(zero MemoryStore)": func() error {
			_, err := core.NewLimiter(p, core.WithStore(&core.MemoryStore{}))
			return err
		},
		"WithClock(typed nil)": func() error {
			_, err := core.NewLimiter(p, core.WithClock((*coretest.Clock)(nil)))
			return err
		},
		"NewPolicy(no limit)":      func() error { _, err := core.NewPolicy("p"); return err },
		"NewPolicy(nil algorithm)": func() error { _, err := core.NewPolicy("p", core.Limit{}); return err },
		"NewPolicy(typed nil algorithm)": func() error {
			_, err := core.NewPolicy("p", core.Limit{Algorithm: (*core.GCRA)(nil)})
			return err
		},
		"NewPolicy(zero algorithm)": func() error { _, err := core.NewPolicy("p", core.Limit{Algorithm: core.GCRA{}}); return err },
		"NewPolicy(name not UTF-8)": func() error {
			_, err := core.NewPolicy("p\xff", core.Limit{Algorithm: core.GCRA{Rate: core.PerSecond(1)}})
			return err
		},
		"NewPolicy(limit name not UTF-8)": func() error {
			_, err := core.NewPolicy("p", core.Limit{Name: "\xc3", Algorithm: core.GCRA{Rate: core.PerSecond(1)}})
			return err
		},
		"Single(typed nil algorithm)": func() error { _, err := core.Single("p", (*core.TokenBucket)(nil)); return err },
		"MemoryStore.Bind(nil)":       func() error { _, err := new(core.MemoryStore).Bind(p); return err },
		"NewMemoryStore(bad)":         func() error { _, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: -1}); return err },
	} {
		assert.ErrorIs(t, build(), core.ErrInvalidConfig, name)
	}
	// A nil clock (no WithClock, or WithClock(nil)) is the system clock,
	// as documented; no WithStore is a memory store of the limiter's own.
	_, err := core.NewLimiter(p, core.WithClock(nil))
	require.NoError(t, err)
	// WithStore(nil) is refused: a fleet's store variable left nil would
	// give each process a memory store of its own, N times the limit.
	_, err = core.NewLimiter(p, core.WithStore(nil))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = core.NewOverrides(p, func(context.Context, string) (*core.Policy, bool, error) { return nil, false, nil },
		core.OverrideOptions{}, core.WithStore(nil))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}

// A zero Limiter (not made by NewLimiter) answers every call with an error
// instead of panicking.
func TestZeroLimiterErrs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, l := range []*core.Limiter{{}, nil} {
		_, err := l.Allow(ctx, "k")
		assert.ErrorIs(t, err, core.ErrInvalidConfig)
		_, err = l.Peek(ctx, "k", 1)
		assert.ErrorIs(t, err, core.ErrInvalidConfig)
		assert.ErrorIs(t, l.Reset(ctx, "k"), core.ErrInvalidConfig)
		_, err = l.Refund(ctx, "k", core.Result{})
		assert.ErrorIs(t, err, core.ErrInvalidConfig)
	}
}

// A nil or zero Waiter (not made by NewWaiter) answers with an error
// instead of panicking (a nil pointer dereference in its wait line).
func TestZeroWaiterErrs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, w := range []*core.Waiter{{}, nil} {
		require.NotPanics(t, func() {
			_, err := w.Wait(ctx, "k")
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			_, err = w.WaitN(ctx, "k", 2)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Zero(t, w.Waiting("k"))
		})
	}
}
