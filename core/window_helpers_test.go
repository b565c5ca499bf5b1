package core_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// Helpers shared by the tests of the window algorithms (FixedWindow,
// SlidingLog, SlidingWindow, RollingWindow).

// winLimiter returns a limiter of the single limit a, on a small store of
// its own, and its clock, which reads t0.
func winLimiter(tb testing.TB, a core.Algorithm) (*core.Limiter, *coretest.Clock) {
	tb.Helper()
	clk := coretest.NewClock(t0)
	return winLimiterOn(tb, clk, a), clk
}

// winLimiterOn is winLimiter on the clock clk.
func winLimiterOn(tb testing.TB, clk *coretest.Clock, a core.Algorithm) *core.Limiter {
	tb.Helper()
	p, err := core.Single("win", a)
	require.NoError(tb, err)
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 64, Shards: 1})
	require.NoError(tb, err)
	l, err := core.NewLimiter(p, core.WithClock(clk), core.WithStore(ms), core.WithRefundLedger(0, anyAge))
	require.NoError(tb, err)
	return l
}

// winLimiters caches limiters by algorithm, for random schedules that
// would otherwise build thousands of them. Each schedule resets its key.
type winLimiters struct {
	tb  testing.TB
	m   map[core.Algorithm]*core.Limiter
	clk *coretest.Clock
}

func newWinLimiters(tb testing.TB) *winLimiters {
	return &winLimiters{tb: tb, m: map[core.Algorithm]*core.Limiter{}, clk: coretest.NewClock(t0)}
}

// get returns the limiter of a, with the key k reset.
func (w *winLimiters) get(a core.Algorithm) *core.Limiter {
	l := w.m[a]
	if l == nil {
		l = winLimiterOn(w.tb, w.clk, a)
		w.m[a] = l
	}
	// Reset before any instant a schedule uses: a refund of a decision
	// taken before a reset gives nothing back.
	w.clk.Set(t0.Add(-time.Hour))
	if err := l.Reset(context.Background(), "k"); err != nil {
		w.tb.Fatal(err)
	}
	return l
}

// The helpers used in loops of thousands of steps avoid testify and
// t.Helper, which cost more than the decisions they check.

// winTake sets clk to at and takes cost for key.
func winTake(tb testing.TB, l *core.Limiter, clk *coretest.Clock, at time.Time, key string, cost int64) core.Result {
	clk.Set(at)
	r, err := l.AllowN(context.Background(), key, cost)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// winPeek sets clk to at and peeks cost for key.
func winPeek(tb testing.TB, l *core.Limiter, clk *coretest.Clock, at time.Time, key string, cost int64) core.Result {
	clk.Set(at)
	r, err := l.Peek(context.Background(), key, cost)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// winCheckRetry checks that r, a denial of cost for key at at, has an exact
// RetryAfter: the same request passes at at+RetryAfter and not 1 ns or 1 ms
// earlier. It peeks, so it changes nothing.
func winCheckRetry(tb testing.TB, l *core.Limiter, clk *coretest.Clock, at time.Time, key string, cost int64, r core.Result) {
	ra := r.RetryAfter
	switch {
	case r.Allowed || ra <= 0:
		tb.Fatalf("at %v: not a denial: %+v", at, r)
	case ra == core.Never:
	case !winPeek(tb, l, clk, at.Add(ra), key, cost).Allowed:
		tb.Fatalf("cost %d at %v: denied at + RetryAfter %v", cost, at, ra)
	case winPeek(tb, l, clk, at.Add(ra-time.Nanosecond), key, cost).Allowed:
		tb.Fatalf("cost %d at %v: allowed at + RetryAfter %v − 1ns", cost, at, ra)
	case winPeek(tb, l, clk, at.Add(ra-time.Millisecond), key, cost).Allowed:
		tb.Fatalf("cost %d at %v: allowed at + RetryAfter %v − 1ms", cost, at, ra)
	}
}

// winCheck fails tb with the formatted message unless ok. Unlike testify it
// costs nothing when ok.
func winCheck(tb testing.TB, ok bool, format string, args ...any) {
	if !ok {
		tb.Helper()
		tb.Fatalf(format, args...)
	}
}

// winInvalid checks that every algorithm of bad fails validation, both on
// its own and in a policy, with an error wrapping ErrInvalidConfig, and that
// every one of good validates.
func winInvalid(t *testing.T, good, bad map[string]core.Algorithm) {
	t.Helper()
	for name, a := range bad {
		checkValidation(t, a, false, name)
	}
	for name, a := range good {
		checkValidation(t, a, true, name)
	}
}

// winCheckIdleAt builds random states of a by random operations and checks
// that from idleAt on they decide exactly as the zero state: the same
// outcomes, in every field, for the same random operations at instants
// ≥ idleAt, some of them out of order.
func winCheckIdleAt(t *testing.T, a core.Algorithm, span time.Duration, maxCost int64, rounds int) {
	t.Helper()
	s, err := core.NewProbe(a)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(11, uint64(span)))
	sp := int64(span)
	base := t0.UnixNano()
	st, zero := make([]int64, s.Words()), make([]int64, s.Words())
	var takens []int64
	for round := range rounds {
		clear(st)
		takens = takens[:0]
		now := base + rng.Int64N(sp)
		// Build a state; an op is a take, a peek, a denied attempt or a
		// refund.
		for range 1 + rng.IntN(40) {
			now += rng.Int64N(sp/3 + 1)
			at := now
			if rng.IntN(6) == 0 {
				at -= rng.Int64N(sp/2 + 1)
			}
			winRandomOp(rng, s, st, at, maxCost, &takens)
		}
		ia := s.IdleAt(st)
		from := ia
		if ia == 0 {
			from = now - sp + rng.Int64N(2*sp)
		}
		switch rng.IntN(3) {
		case 0:
		case 1:
			from++
		default:
			from += rng.Int64N(sp)
		}
		x := append([]int64(nil), st...)
		clear(zero)
		ops := rng.Uint64()
		for i := range 1 + rng.IntN(20) {
			at := from + rng.Int64N(sp/2+1)
			if i > 0 && rng.IntN(4) == 0 {
				at = max(ia, from-rng.Int64N(sp/4+1))
			}
			from = max(from, at)
			r1 := rand.New(rand.NewPCG(ops, uint64(i)))
			r2 := rand.New(rand.NewPCG(ops, uint64(i)))
			tk := len(takens)
			o1 := winRandomOp(r1, s, x, at, maxCost, &takens)
			takens = takens[:tk]
			o2 := winRandomOp(r2, s, zero, at, maxCost, &takens)
			winCheck(t, o1 == o2, "round %d op %d at idleAt%+d: state %v: got %+v, a fresh key %+v", round, i, at-ia, st, o1, o2)
			// Both idle, or idle from the same instant.
			i1, i2 := s.IdleAt(x), s.IdleAt(zero)
			winCheck(t, i1 == i2 || (i1 <= at && i2 <= at), "round %d op %d: idleAt %d, of a fresh key %d", round, i, i1, i2)
		}
	}
}

// winRandomOp applies a random operation to st at now and returns its
// outcome (the zero outcome for a refund or a denied attempt). Admitted
// takes append their instant to takens; refunds use them.
func winRandomOp(rng *rand.Rand, s *core.Probe, st []int64, now, maxCost int64, takens *[]int64) core.ProbeOutcome {
	cost := 1 + rng.Int64N(maxCost)
	switch k := rng.IntN(10); {
	case k < 6:
		o := s.Take(st, now, cost, true)
		if o.Allowed {
			*takens = append(*takens, now)
		} else {
			s.Denied(st, now, cost)
		}
		return o
	case k < 8:
		return s.Take(st, now, cost, false)
	default:
		if len(*takens) > 0 {
			s.Refund(st, now, (*takens)[rng.IntN(len(*takens))], cost)
		}
		return s.Take(st, now, 1, false)
	}
}

// sameOutcomes fails t as require.Equal does unless want and got hold the
// same outcomes. Unlike testify (reflection, and a runtime.Callers for
// t.Helper on every call), it costs a comparison when they do: property
// tests call it thousands of times.
func sameOutcomes(t testing.TB, want, got []core.ProbeOutcome, msgAndArgs ...any) {
	if (want == nil) != (got == nil) || !slices.Equal(want, got) {
		t.Helper()
		require.Equal(t, want, got, msgAndArgs...)
	}
}
