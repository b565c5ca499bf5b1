package core_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callerID marks each caller's context in TestAttackOverrideHangups.
type callerID struct{}

// TestAttackOverrideHangups: clients of a restricted tenant hanging up
// while the provider (a database query that honours its context) looks
// their key up. Each hang-up fails the call in flight, which is that
// caller's alone and cached for no one: the provider is called again for
// the next caller, one call per hang-up (what a fresh key per request
// costs too), but never two at once for one key, however many callers
// wait; and the key never falls to the looser default: when the provider
// then fails for a caller still there, the key's last override decides.
func TestAttackOverrideHangups(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	def := hourlyPolicy("default", 100)
	strict := hourlyPolicy("strict", 1)
	var (
		calls, inside, most atomic.Int64
		blocking, failing   atomic.Bool
	)
	entered := make(chan context.Context)
	provider := func(ctx context.Context, key string) (*core.Policy, bool, error) {
		calls.Add(1)
		n := inside.Add(1)
		defer inside.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		switch {
		case blocking.Load():
			entered <- ctx
			<-ctx.Done()
			return nil, false, ctx.Err()
		case failing.Load():
			return nil, false, errors.New("database overloaded")
		}
		return strict, true, nil
	}
	o, err := core.NewOverrides(def, provider, core.OverrideOptions{TTL: time.Minute}, core.WithClock(clk))
	require.NoError(t, err)
	bg := context.Background()
	r, err := o.Allow(bg, "tenant")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	clk.Advance(time.Minute) // the cached answer expires

	blocking.Store(true)
	const callers = 10
	cancels := make([]context.CancelFunc, callers)
	var wg sync.WaitGroup
	for i := range callers {
		ctx, cancel := context.WithCancel(context.WithValue(bg, callerID{}, i))
		cancels[i] = cancel
		wg.Go(func() {
			_, err := o.Allow(ctx, "tenant")
			assert.ErrorIs(t, err, context.Canceled)
		})
	}
	for range callers {
		ctx := within.Recv(t, entered, "a caller's provider call")
		cancels[ctx.Value(callerID{}).(int)]() // that client hangs up
	}
	within.Wait(t, &wg, "the callers")
	assert.Equal(t, int64(1+callers), calls.Load(), "one provider call per hang-up")
	assert.Equal(t, int64(1), most.Load(), "never two provider calls of one key at once")

	blocking.Store(false)
	failing.Store(true)
	r, err = o.Allow(bg, "tenant")
	require.NoError(t, err)
	assert.False(t, r.Allowed, "still held to its override's 1 an hour, not the default's 100")
	assert.Equal(t, int64(1), r.Quota)
	assert.Equal(t, int64(2+callers), calls.Load())
	r, err = o.Allow(bg, "tenant")
	require.NoError(t, err)
	assert.False(t, r.Allowed)
	assert.Equal(t, int64(2+callers), calls.Load(), "the failure is cached for ErrorTTL")
}
