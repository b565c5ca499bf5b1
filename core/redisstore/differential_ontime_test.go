package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestDifferentialOnTime replays TestDifferential's random traces (every
// algorithm, multi-limit policies, costs up to 8, peeks, refunds, resets)
// with the scripts deciding as on Redis TIME, on a clock that only moves
// forward, as TIME does: a state a decision on TIME moves back (a clock
// that went back) would decide otherwise than the memory store. A clock
// stepped back an hour shows the hook is live: the used-up key is moved
// back, denied for its minute, not the hour.
func TestDifferentialOnTime(t *testing.T) {
	t.Parallel()
	c := startRedis(t).Client(t)
	require.NoError(t, redisstore.LoadOnTime(context.Background(), c))
	s := &bindOnce{s: newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})}
	pool := diffPolicies(rand.New(rand.NewPCG(3, 99)))
	rng := rand.New(rand.NewPCG(7, 99))
	for i := range 60 {
		require.NoError(t, diffTrace(rng, s, i, s.policy(pool[rng.IntN(len(pool))])))
	}

	clk := coretest.NewClock(coretest.T0.Add(time.Hour))
	l, err := core.NewLimiter(core.MustPolicy("live", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(5)}}),
		core.WithStore(s.s), core.WithClock(clk))
	require.NoError(t, err)
	r, err := l.AllowN(context.Background(), "k", 5)
	require.NoError(t, err)
	require.True(t, r.Allowed)
	clk.Set(coretest.T0)
	r, err = l.Allow(context.Background(), "k")
	require.NoError(t, err)
	require.False(t, r.Allowed)
	require.LessOrEqual(t, r.RetryAfter, time.Minute, "moved back as on TIME")
}

// TestDifferentialMixedClocks replays random traces of two processes
// sharing keys, one on Redis TIME (LoadMixedTime: instants of odd µs) and
// one on its own clock (CallerClock), at or behind TIME by up to 3 s: TIME
// never goes back, so no decision may move a state (settle), and every
// result is the one a server deciding both on the callers' clocks (no
// settle at all) gives on the same clocks. (Against the memory store, a
// caller lagging another already differs on an anchored FixedWindow,
// stricter on Redis, whatever TIME does.)
func TestDifferentialMixedClocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, rc := startRedis(t).Client(t), startRedis(t).Client(t)
	require.NoError(t, redisstore.LoadMixedTime(ctx, c))
	opts := redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, DenyCacheSize: -1}
	s := &bindOnce{s: newStore(t, c, opts)}
	ref := &bindOnce{s: newStore(t, rc, opts)}
	pool := diffPolicies(rand.New(rand.NewPCG(5, 99)))
	rng := rand.New(rand.NewPCG(9, 99))
	for i := range 16 {
		p := s.policy(pool[rng.IntN(len(pool))])
		require.NoError(t, mixedTrace(rng, s, ref, i, p))
	}
}

func mixedTrace(rng *rand.Rand, s, mem core.Store, i int, p *core.Policy) error {
	ctx := context.Background()
	var err error
	at := coretest.T0.UnixMicro()/2*2 + 1 + 2*rng.Int64N(5e8) // TIME's instant: odd µs
	clks := [2]*coretest.Clock{coretest.NewClock(time.UnixMicro(at)), coretest.NewClock(time.UnixMicro(at - 1))}
	var got, ref [2]*core.Limiter
	for j := range 2 {
		if got[j], err = core.NewLimiter(p, core.WithStore(s), core.WithClock(clks[j])); err != nil {
			return err
		}
		if ref[j], err = core.NewLimiter(p, core.WithStore(mem), core.WithClock(clks[j])); err != nil {
			return err
		}
	}
	key := fmt.Sprint("m", i)
	var lastGot, lastRef [2]core.Result
	for step := range 30 {
		if rng.IntN(3) > 0 {
			at += 2 * rng.Int64N(750_000)
		}
		clks[0].Set(time.UnixMicro(at))
		clks[1].Set(time.UnixMicro(at - 1 - 2*rng.Int64N(1_500_000))) // at or behind TIME
		j := rng.IntN(2)
		cost := 1 + rng.Int64N(3)
		var g, r core.Result
		var eg, er error
		op := rng.IntN(20)
		switch {
		case op < 13:
			g, eg = got[j].AllowN(ctx, key, cost)
			r, er = ref[j].AllowN(ctx, key, cost)
			if r.Taken() || rng.IntN(2) == 0 {
				lastGot[j], lastRef[j] = g, r
			}
		case op < 16:
			g, eg = got[j].Peek(ctx, key, cost)
			r, er = ref[j].Peek(ctx, key, cost)
		case op < 19:
			g, eg = got[j].Refund(ctx, key, lastGot[j])
			r, er = ref[j].Refund(ctx, key, lastRef[j])
			lastGot[j], lastRef[j] = core.Result{}, core.Result{}
		default:
			eg, er = got[j].Reset(ctx, key), ref[j].Reset(ctx, key)
		}
		if !errors.Is(eg, er) {
			return fmt.Errorf("trace %d (%v) step %d op %d by %d: error %v, want %v", i, p.Limits(), step, op, j, eg, er)
		}
		if g.Taken() != r.Taken() || g.Allowed != r.Allowed || g.Remaining != r.Remaining ||
			g.RetryAfter != r.RetryAfter || g.ResetAfter != r.ResetAfter || !slices.Equal(g.Limits(), r.Limits()) {
			return fmt.Errorf("trace %d (%v) step %d op %d cost %d by %d:\n got  %+v\n want %+v", i, p.Limits(), step, op, cost, j, g.Limits(), r.Limits())
		}
	}
	return nil
}
