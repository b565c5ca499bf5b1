package redisstore

import (
	"errors"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestShapeFollowsSetPolicy: two policies name the same keys (shape) exactly
// when core.Limiter.SetPolicy takes the one on the other's state: every
// algorithm raised and lowered keeps its keys; every change SetPolicy
// refuses (another window, anchoring, log length, period, algorithm,
// limit name or policy name) names other keys, so that a policy bound
// afresh never reads state it cannot be decided on.
func TestShapeFollowsSetPolicy(t *testing.T) {
	var pairs [][2]*core.Policy
	for _, l := range coretest.Algorithms() {
		p := core.MustPolicy("p", l)
		for _, up := range []bool{true, false} {
			pairs = append(pairs, [2]*core.Policy{p, core.MustPolicy("p", core.Limit{Name: l.Name, Algorithm: coretest.Scaled(l.Algorithm, up)})})
		}
		pairs = append(pairs, [2]*core.Policy{p, core.MustPolicy("q", l)}, [2]*core.Policy{p, core.MustPolicy("p", core.Limit{Name: l.Name + "2", Algorithm: l.Algorithm})})
	}
	one := func(a core.Algorithm) *core.Policy { return core.MustPolicy("p", core.Limit{Name: "l", Algorithm: a}) }
	for _, c := range [][2]core.Algorithm{
		{core.FixedWindow{Quota: 5, Window: time.Second}, core.FixedWindow{Quota: 5, Window: 2 * time.Second}},
		{core.FixedWindow{Quota: 5, Window: time.Second}, core.FixedWindow{Quota: 5, Window: time.Second, Anchored: true}},
		{core.FixedWindow{Quota: 5, Window: time.Second}, core.SlidingWindow{Quota: 5, Window: time.Second}},
		{core.SlidingWindow{Quota: 5, Window: time.Second}, core.SlidingWindow{Quota: 5, Window: 2 * time.Second}},
		{core.SlidingLog{Quota: 5, Window: time.Second}, core.SlidingLog{Quota: 6, Window: time.Second}},
		{core.SlidingLog{Quota: 5, Window: time.Second}, core.SlidingLog{Quota: 5, Window: 3 * time.Second, CountRejected: true}},
		{core.RollingWindow{Quota: 5, Window: 4 * time.Second, Period: time.Second}, core.RollingWindow{Quota: 5, Window: 4 * time.Second, Period: 2 * time.Second}},
		{core.RollingWindow{Quota: 5, Window: 4 * time.Second, Period: time.Second}, core.RollingWindow{Quota: 5, Window: 8 * time.Second, Period: time.Second}},
		{core.Hybrid{Quota: 5, Window: time.Second}, core.Hybrid{Quota: 5, Window: 2 * time.Second}},
		{core.GCRA{Rate: core.PerSecond(1)}, core.TokenBucket{Rate: core.PerSecond(1)}},
		{core.GCRA{Rate: core.PerSecond(1)}, core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 1}},
		{core.WarmUp{Rate: core.PerSecond(4), WarmUp: time.Second}, core.WarmUp{Rate: core.PerSecond(2), WarmUp: 3 * time.Second, ColdFactor: 2}},
	} {
		pairs = append(pairs, [2]*core.Policy{one(c[0]), one(c[1])})
	}
	for _, pr := range pairs {
		l, err := core.NewLimiter(pr[0])
		require.NoError(t, err)
		err = l.CheckPolicy(pr[1])
		require.True(t, err == nil || errors.Is(err, core.ErrPolicyChange), "%v", err)
		require.Equal(t, err == nil, shape(pr[0]) == shape(pr[1]), "%v -> %v: SetPolicy says %v", pr[0].Limits(), pr[1].Limits(), err)
	}
}
