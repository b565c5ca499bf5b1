package localfirst_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideSpanChangeRefusesTier: an override tier whose GCRA
// changes from 60/min to 60/h (its burst's refill time now fits an hour:
// a change SetPolicy refuses) starts its name's limiter afresh, as
// core.Overrides documents; the store refused the new limiter's Bind while
// the former one, kept by Overrides, used the name and shape, and every
// key new to the tier was refused from then on.
func TestAttackOverrideSpanChangeRefusesTier(t *testing.T) {
	t.Parallel()
	s, err := localfirst.New(newClient(t, "127.0.0.1:1"), localfirst.Options{Nodes: 2})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	clk := coretest.NewClock(t0)
	var gold atomic.Pointer[core.Policy]
	gold.Store(core.MustPolicy("gold", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(60), Burst: 10}}))
	def := core.MustPolicy("free", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 5, Window: time.Minute}})
	o, err := core.NewOverrides(def, func(context.Context, string) (*core.Policy, bool, error) {
		return gold.Load(), true, nil
	}, core.OverrideOptions{}, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)
	ctx := context.Background()
	r, err := o.Allow(ctx, "tenant")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	gold.Store(core.MustPolicy("gold", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerHour(60), Burst: 10}}))
	clk.Advance(2 * core.DefaultOverrideTTL)
	r, err = o.Allow(ctx, "newcomer")
	require.NoError(t, err, "a key new to the tier after its change")
	require.True(t, r.Allowed)
}
