package core_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideFaultOnForgottenNameThenFresh: a provider fault keeps
// a key on the limiter that decided it before. When that limiter's name
// had been forgotten (retired, not yet past return), the key was handed
// it back without its name being taken back: the key took on a limiter no
// name held, which forgetting never looks at, the next forgotten name
// pushed it past return, and the name's return made a new limiter where
// the key started afresh: 2 of a 1-an-hour quota within minutes.
func TestAttackOverrideFaultOnForgottenNameThenFresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	var failing atomic.Bool
	provider := strictUnlessFailing("tenant", hourlyPolicy, &failing)
	o, err := core.NewOverrides(hourlyPolicy("default", 100), provider,
		core.OverrideOptions{MaxPolicies: 1, TTL: time.Minute, ErrorTTL: time.Second}, core.WithClock(clk))
	require.NoError(t, err)

	_, err = o.Peek(ctx, "tenant", 1) // "strict" made, nothing taken
	require.NoError(t, err)
	clk.Advance(61 * time.Second)
	_, err = o.Peek(ctx, "x", 1) // "strict" forgotten for "x" (retired)
	require.NoError(t, err)
	clk.Advance(61 * time.Second)
	failing.Store(true)
	admitted := 0
	r, err := o.Allow(ctx, "tenant") // fault: decided by "strict"'s limiter
	if err == nil && r.Allowed {
		admitted++
	}
	failing.Store(false)
	clk.Advance(2 * time.Second)
	_, _ = o.Peek(ctx, "y", 1) // a new name: one more forgotten and retired, if one can give way
	clk.Advance(2 * time.Minute)
	for range 3 {
		r, err := o.Allow(ctx, "tenant")
		if err == nil && r.Allowed {
			admitted++
		}
	}
	require.LessOrEqual(t, admitted, 1, "1 an hour, whatever names come and go")
}
