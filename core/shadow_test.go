package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShadowPolicyValidation(t *testing.T) {
	gcra := core.GCRA{Rate: core.PerSecond(1), Burst: 1}
	for name, limits := range map[string][]core.Limit{
		"only shadow":       {{Name: "a", Algorithm: gcra, Shadow: true}},
		"duplicate name":    {{Name: "a", Algorithm: gcra}, {Name: "a", Algorithm: gcra, Shadow: true}},
		"duplicate shadows": {{Name: "a", Algorithm: gcra}, {Name: "b", Algorithm: gcra, Shadow: true}, {Name: "b", Algorithm: gcra, Shadow: true}},
		"invalid shadow":    {{Name: "a", Algorithm: gcra}, {Name: "b", Algorithm: core.GCRA{}, Shadow: true}},
		"nil shadow":        {{Name: "a", Algorithm: gcra}, {Name: "b", Shadow: true}},
		"too many, shadows": {{Name: "a", Algorithm: gcra}, {Name: "b", Algorithm: gcra}, {Name: "c", Algorithm: gcra}, {Name: "d", Algorithm: gcra}, {Name: "e", Algorithm: gcra, Shadow: true}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := core.NewPolicy("p", limits...)
			require.ErrorIs(t, err, core.ErrInvalidConfig)
		})
	}
	p, err := core.NewPolicy("p", core.Limit{Name: "s", Algorithm: gcra, Shadow: true}, core.Limit{Name: "e", Algorithm: gcra})
	require.NoError(t, err)
	assert.Equal(t, []core.Limit{{Name: "e", Algorithm: gcra}}, p.Limits())
	assert.Equal(t, []core.Limit{{Name: "s", Algorithm: gcra, Shadow: true}}, p.ShadowLimits())
	assert.Equal(t, []core.Limit{{Name: "e", Algorithm: gcra}, {Name: "s", Algorithm: gcra, Shadow: true}}, p.AllLimits())
	assert.Nil(t, core.MustPolicy("q", core.Limit{Algorithm: gcra}).ShadowLimits())
}

// TestShadowNeverChangesTheDecision: on random traces, a policy with
// shadow limits decides exactly as the same policy without them, and each
// shadow limit exactly as a policy of that limit alone.
func TestShadowNeverChangesTheDecision(t *testing.T) {
	ctx := context.Background()
	algs := coretest.Algorithms()
	for i := range algs {
		enforced, shadow := algs[i], algs[(i+3)%len(algs)]
		shadow.Name, shadow.Shadow = "shadow-"+shadow.Name, true
		t.Run(enforced.Name+"/"+shadow.Name, func(t *testing.T) {
			clk := coretest.NewClock(coretest.T0)
			with, err := core.NewLimiter(core.MustPolicy("p", enforced, shadow), core.WithClock(clk))
			require.NoError(t, err)
			plain, err := core.NewLimiter(core.MustPolicy("p", enforced), core.WithClock(clk))
			require.NoError(t, err)
			alone := shadow
			alone.Shadow = false
			solo, err := core.NewLimiter(core.MustPolicy("s", alone), core.WithClock(clk))
			require.NoError(t, err)
			seed := uint64(i)
			for step := range 400 {
				seed = seed*6364136223846793005 + 1442695040888963407
				clk.Advance(time.Duration(seed>>40) % (3 * time.Second))
				cost := int64(1 + (seed>>20)%3)
				var a, b, c core.Result
				require.NoError(t, with.Take(ctx, "k", cost, &a))
				require.NoError(t, plain.Take(ctx, "k", cost, &b))
				require.NoError(t, solo.Take(ctx, "k", cost, &c))
				require.Equal(t, b.Limits(), a.Limits(), "step %d: the enforced limit", step)
				require.Equal(t, b.Allowed, a.Allowed, "step %d", step)
				sh := a.ShadowLimits()
				require.Len(t, sh, 1)
				want := c.Limits()[0]
				want.Name = shadow.Name
				require.Equal(t, want, sh[0], "step %d: the shadow limit", step)
				require.Equal(t, !c.Allowed, a.ShadowDenied(), "step %d", step)
			}
		})
	}
}

// TestShadowAllocatesNothing: a take on the memory store with a shadow
// limit allocates nothing either.
func TestShadowAllocatesNothing(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	ctx := context.Background()
	p := core.MustPolicy("p",
		core.Limit{Name: "e", Algorithm: core.GCRA{Rate: core.PerSecond(10), Burst: 5}},
		core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: 3, Window: time.Minute}, Shadow: true})
	l, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(coretest.T0)), core.WithObserver(&nopObserver{}))
	require.NoError(t, err)
	var res core.Result
	require.NoError(t, l.Take(ctx, "k", 1, &res))
	allocs := testing.AllocsPerRun(200, func() { _ = l.Take(ctx, "k", 1, &res) })
	require.Zero(t, allocs)
}

// TestShadowRefundGivesBackEnforcedOnly: a refund gives back what the
// enforced limits took; the shadow limits keep counting the take (what
// they report is then an upper bound for a route that refunds).
func TestShadowRefundGivesBackEnforcedOnly(t *testing.T) {
	ctx := context.Background()
	p := core.MustPolicy("p",
		core.Limit{Name: "e", Algorithm: core.FixedWindow{Quota: 2, Window: time.Hour}},
		core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: 2, Window: time.Hour}, Shadow: true})
	l, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(coretest.T0)))
	require.NoError(t, err)
	r, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	after, err := l.Refund(ctx, "k", r)
	require.NoError(t, err)
	assert.Equal(t, int64(1), after.Remaining, "the enforced limit got it back (a peek of cost 1)")
	assert.Nil(t, after.ShadowLimits(), "a refund's Result reports no shadow")
	peek, err := l.Peek(ctx, "k", 1)
	require.NoError(t, err)
	assert.Equal(t, int64(0), peek.ShadowLimits()[0].Remaining, "the shadow limit still counts the take")
}

func TestParsePolicyShadow(t *testing.T) {
	p, err := core.ParsePolicy("api", "burst: 10/s; daily: shadow 10000/day fixed-window; shadow 5/min")
	require.NoError(t, err)
	assert.Equal(t, []core.Limit{{Name: "burst", Algorithm: core.GCRA{Rate: core.PerSecond(10), Burst: 10}}}, p.Limits())
	assert.Equal(t, []core.Limit{
		{Name: "daily", Algorithm: core.FixedWindow{Quota: 10000, Window: 24 * time.Hour}, Shadow: true},
		{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(5), Burst: 5}, Shadow: true},
	}, p.ShadowLimits())
	assert.Equal(t, "burst: 10/s; daily: shadow 10000/day fixed-window; shadow 5/min", p.String())

	p, err = core.ParsePolicy("api", "shadow: 10/s; b: 1/s")
	require.NoError(t, err)
	assert.Equal(t, "shadow", p.Limits()[0].Name, "a limit may be named shadow")

	for s, want := range map[string]string{
		"shadow 10/s":          "only shadow limits",
		"1/s; b: shadow":       "empty limit at column 15",
		"1/s; b: shadow brust": `"brust" at column 16`,
		"1/s; b: shadowy 2/s":  `"shadowy"`,
	} {
		_, err := core.ParsePolicy("api", s)
		require.ErrorIs(t, err, core.ErrInvalidConfig, s)
		assert.Contains(t, err.Error(), want, s)
	}
}
