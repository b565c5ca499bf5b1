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

// TestAttackOverrideClockBackForgetsCachedName: a name is forgotten only
// when no cached answer hands out its limiter, its last use older than
// TTL. The answer's expiry counted from the instant its key was looked
// up, its name's use from a second reading of the clock after the
// provider answered: a clock stepped back in between (an injected wall
// clock, NTP) made the name unused, and forgotten, while the answer still
// handed out its limiter; the key took on it, forgotten, the next name
// forgotten pushed it past return, and the name's return started the key
// afresh: 2 of a 1-an-hour quota within minutes.
func TestAttackOverrideClockBackForgetsCachedName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	var stepped atomic.Bool
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) {
		if key == "tenant" {
			if stepped.CompareAndSwap(false, true) {
				clk.Advance(-30 * time.Second) // the clock stepped back meanwhile
			}
			return hourlyPolicy("strict", 1), true, nil
		}
		return hourlyPolicy(key, 10), true, nil
	}
	o, err := core.NewOverrides(hourlyPolicy("default", 100), provider,
		core.OverrideOptions{MaxPolicies: 1, TTL: time.Minute, ErrorTTL: time.Second}, core.WithClock(clk))
	require.NoError(t, err)

	_, err = o.Peek(ctx, "tenant", 1) // cached a minute from t0
	require.NoError(t, err)
	admitted := 0
	allow := func() {
		if r, err := o.Allow(ctx, "tenant"); err == nil && r.Allowed {
			admitted++
		}
	}
	clk.Advance(61 * time.Second) // t0+31s: the answer still cached
	_, _ = o.Peek(ctx, "x", 1)    // a new name: "strict" forgotten, if it may be
	allow()
	clk.Advance(61 * time.Second)
	_, _ = o.Peek(ctx, "y", 1) // one more
	clk.Advance(61 * time.Second)
	allow()
	require.LessOrEqual(t, admitted, 1, "1 an hour")
}
