package core_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boStep is one take (or refund of the previous take) at t0+at.
type boStep struct {
	at        time.Duration
	refund    bool
	allowed   bool
	remaining int64
	retry     time.Duration
	reset     time.Duration
}

func boRun(t *testing.T, b core.Backoff, steps []boStep) {
	t.Helper()
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, core.Limit{Name: "login", Algorithm: b})
	ctx := context.Background()
	var last core.Result
	for i, s := range steps {
		clk.Set(t0.Add(s.at))
		var r core.Result
		var err error
		if s.refund {
			r, err = l.Refund(ctx, "k", last)
		} else {
			r, err = l.Allow(ctx, "k")
			last = r
		}
		require.NoError(t, err)
		assert.Equal(t, s.allowed, r.Allowed, "step %d at %v", i, s.at)
		assert.Equal(t, s.remaining, r.Remaining, "step %d at %v remaining", i, s.at)
		assert.Equal(t, s.retry, r.RetryAfter, "step %d at %v retry", i, s.at)
		assert.Equal(t, s.reset, r.ResetAfter, "step %d at %v reset", i, s.at)
	}
}

func TestBackoffDoublingAndCap(t *testing.T) {
	t.Parallel()
	b := core.Backoff{Free: 2, Window: time.Hour, Base: time.Second, Max: 8 * time.Second, Forgive: time.Hour}
	s := time.Second
	boRun(t, b, []boStep{
		{at: 0, allowed: true, remaining: 1, reset: time.Hour},
		{at: 0, allowed: true, remaining: 0, reset: time.Hour},
		// The third failure is admitted and locks for Base.
		{at: 0, allowed: true, remaining: 0, reset: time.Hour},
		{at: 0, retry: s, reset: time.Hour},
		{at: s - 1, retry: 1, reset: time.Hour - s + 1},
		{at: s, allowed: true, reset: time.Hour}, // locks 2 s
		{at: 3*s - 1, retry: 1, reset: time.Hour - 2*s + 1},
		{at: 3 * s, allowed: true, reset: time.Hour},  // locks 4 s
		{at: 7 * s, allowed: true, reset: time.Hour},  // locks 8 s
		{at: 15 * s, allowed: true, reset: time.Hour}, // capped at 8 s
		{at: 22 * s, retry: s, reset: time.Hour - 7*s},
		{at: 23 * s, allowed: true, reset: time.Hour}, // still 8 s
		{at: 31*s - 1, retry: 1, reset: time.Hour - 8*s + 1},
	})
}

// Failures older than Window no longer count toward Free; the lockout
// exponent survives the window until forgiveness.
func TestBackoffWindowExpiry(t *testing.T) {
	t.Parallel()
	b := core.Backoff{Free: 2, Window: time.Minute, Base: time.Second, Max: time.Hour, Forgive: 2 * time.Hour}
	m := time.Minute
	boRun(t, b, []boStep{
		{at: 0, allowed: true, remaining: 1, reset: m}, // no lockout yet: fresh at the window's end
		{at: 30 * time.Second, allowed: true, remaining: 0, reset: 30 * time.Second},
		{at: m, allowed: true, remaining: 1, reset: m}, // a new window: the old failures are gone
		{at: m, allowed: true, remaining: 0, reset: m},
		{at: m, allowed: true, reset: 2 * time.Hour}, // locks 1 s; now only forgiveness resets
		{at: 2 * m, allowed: true, remaining: 1, reset: 2 * time.Hour},
		{at: 2 * m, allowed: true, reset: 2 * time.Hour},
		{at: 2 * m, allowed: true, reset: 2 * time.Hour}, // beyond Free again: locks 2 s (k = 1)
		{at: 2*m + 2*time.Second - 1, retry: 1, reset: 2*time.Hour - 2*time.Second + 1},
	})
}

func TestBackoffForgiveness(t *testing.T) {
	t.Parallel()
	b := core.Backoff{Free: 1, Window: time.Hour, Base: time.Minute, Max: time.Hour, Forgive: 3 * time.Hour}
	h := time.Hour
	boRun(t, b, []boStep{
		{at: 0, allowed: true, reset: h},
		{at: 0, allowed: true, reset: 3 * h},           // locks 1 m
		{at: time.Minute, allowed: true, reset: 3 * h}, // locks 2 m
		// Just before forgiveness: still k = 2 (a new window, one free).
		{at: time.Minute + 3*h - 1, allowed: true, reset: 3 * h},
		{at: time.Minute + 3*h - 1, allowed: true, reset: 3 * h}, // locks 4 m
		{at: time.Minute + 3*h - 1 + 4*time.Minute - 1, retry: 1, reset: 3*h - 4*time.Minute + 1},
		// Forgiven: fresh, one free then Base.
		{at: 7 * h, allowed: true, reset: h},
		{at: 7 * h, allowed: true, reset: 3 * h},
		{at: 7 * h, retry: time.Minute, reset: 3 * h},
	})
}

func TestBackoffRefundRestores(t *testing.T) {
	t.Parallel()
	b := core.Backoff{Free: 1, Window: time.Hour, Base: time.Minute, Max: time.Hour, Forgive: 3 * time.Hour}
	boRun(t, b, []boStep{
		{at: 0, allowed: true, reset: time.Hour},
		{at: time.Second, allowed: true, reset: 3 * time.Hour}, // locks
		// A refund reports what a peek of one would: that failure would lock.
		{at: 2 * time.Second, refund: true, allowed: true, reset: 3 * time.Hour},
		{at: 2 * time.Second, allowed: true, reset: 3 * time.Hour}, // locks 1 m again, not 2 m
		{at: 2*time.Second + time.Minute - 1, retry: 1, reset: 3*time.Hour - time.Minute + 1},
		{at: 5 * time.Minute, allowed: true, reset: 3 * time.Hour},
		{at: 5 * time.Minute, refund: true, allowed: true, reset: 3 * time.Hour},
		{at: 5 * time.Minute, allowed: true, reset: 3 * time.Hour}, // locks 2 m, as the refunded take did
		{at: 7*time.Minute - 1, retry: 1, reset: 3*time.Hour - 2*time.Minute + 1},
	})
}

func TestBackoffCostZeroAndNever(t *testing.T) {
	t.Parallel()
	p, err := core.NewProbe(core.Backoff{Free: 3, Window: time.Minute})
	require.NoError(t, err)
	st := make([]int64, p.Words())
	now := t0.UnixNano()
	assert.Equal(t, core.ProbeOutcome{Allowed: true, Remaining: 3}, p.Take(st, now, 0, false))
	p.Take(st, now, 2, true)
	assert.Equal(t, core.ProbeOutcome{Allowed: true, Remaining: 1, ResetAfter: int64(time.Minute)}, p.Take(st, now, 0, false))
	assert.Equal(t, core.ProbeOutcome{Remaining: 1, ResetAfter: int64(time.Minute), RetryAfter: int64(core.Never)}, p.Take(st, now, 4, true))
	p.Take(st, now, 2, true) // one beyond Free: locked for 1 s
	assert.Equal(t, core.ProbeOutcome{Allowed: true, ResetAfter: int64(24 * time.Hour)}, p.Take(st, now, 0, false))
	assert.Equal(t, core.ProbeOutcome{ResetAfter: int64(24 * time.Hour), RetryAfter: int64(time.Second)}, p.Take(st, now, 1, true))
}

func TestBackoffValidate(t *testing.T) {
	t.Parallel()
	cases := map[string]core.Backoff{
		"free 0":           {},
		"free negative":    {Free: -1},
		"free too large":   {Free: core.MaxBackoffFree + 1},
		"window negative":  {Free: 1, Window: -1},
		"window too long":  {Free: 1, Window: time.Duration(math.MaxInt64)},
		"base negative":    {Free: 1, Base: -1},
		"max negative":     {Free: 1, Max: -1},
		"max below base":   {Free: 1, Base: time.Minute, Max: time.Second},
		"forgive negative": {Free: 1, Forgive: -1},
		"forgive < max":    {Free: 1, Max: time.Hour, Forgive: time.Minute},
		"forgive too long": {Free: 1, Forgive: time.Duration(math.MaxInt64)},
		"max too long":     {Free: 1, Max: time.Duration(math.MaxInt64)},
	}
	for name, b := range cases {
		err := b.Validate()
		assert.True(t, errors.Is(err, core.ErrInvalidConfig), "%s: %v", name, err)
	}
	for _, b := range []core.Backoff{
		{Free: 1},
		{Free: core.MaxBackoffFree},
		{Free: 1, Base: time.Hour},     // Max defaults to Base
		{Free: 1, Max: 48 * time.Hour}, // Forgive defaults to Max
		{Free: 1, Base: 1, Max: 1 << 60, Forgive: 1 << 60, Window: 1 << 60},
	} {
		assert.NoError(t, b.Validate(), "%+v", b)
	}
}

// boRandomOps drives p from st with a random schedule starting at now and
// returns every outcome.
func boRandomOps(p *core.Probe, st []int64, now int64, rng *rand.Rand, n int) []core.ProbeOutcome {
	var out []core.ProbeOutcome
	var takenAt, takenCost int64 = -1, 0
	for i := 0; i < n; i++ {
		now += rng.Int64N(int64(3 * time.Second))
		switch rng.IntN(6) {
		case 0:
			out = append(out, p.Take(st, now, 0, false))
		case 1:
			if takenAt >= 0 {
				p.Refund(st, now, takenAt, takenCost)
				takenAt = -1
			}
		default:
			c := 1 + rng.Int64N(3)
			o := p.Take(st, now, c, true)
			if o.Allowed {
				takenAt, takenCost = now, c
			}
			out = append(out, o)
		}
	}
	return out
}

// boRandomState builds a state by a random schedule and returns it with
// the instant of its last operation.
func boRandomState(p *core.Probe, rng *rand.Rand) ([]int64, int64) {
	st := make([]int64, p.Words())
	now := t0.UnixNano()
	var takenAt, takenCost int64 = -1, 0
	for i, n := 0, rng.IntN(20); i < n; i++ {
		now += rng.Int64N(int64(4 * time.Second))
		if rng.IntN(5) == 0 && takenAt >= 0 {
			p.Refund(st, now, takenAt, takenCost)
			takenAt = -1
			continue
		}
		c := 1 + rng.Int64N(2)
		if p.Take(st, now, c, true).Allowed {
			takenAt, takenCost = now, c
		}
	}
	return st, now
}

var boConfigs = []core.Backoff{
	{Free: 2, Window: 5 * time.Second, Base: time.Second, Max: 4 * time.Second, Forgive: 10 * time.Second},
	{Free: 1, Window: 20 * time.Second, Base: 500 * time.Millisecond, Max: 8 * time.Second, Forgive: 8 * time.Second},
	{Free: 3, Window: time.Second, Base: 2 * time.Second, Max: 2 * time.Second, Forgive: 30 * time.Second},
}

// From idleAt on, a state decides every schedule exactly as the zero state.
func TestBackoffIdleAtExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, b := range boConfigs {
		p, err := core.NewProbe(b)
		require.NoError(t, err)
		for i := 0; i < 3000; i++ {
			st, last := boRandomState(p, rng)
			at := max(p.IdleAt(st), last)
			seed := rng.Uint64()
			got := boRandomOps(p, append([]int64(nil), st...), at, rand.New(rand.NewPCG(seed, 1)), 30)
			want := boRandomOps(p, make([]int64, p.Words()), at, rand.New(rand.NewPCG(seed, 1)), 30)
			sameOutcomes(t, want, got, "%+v state %v idle at %d", b, st, at)
			if at > last && at > 0 {
				// Just before idleAt the state is not fresh: its reset says so.
				if o := p.Take(append([]int64(nil), st...), at-1, 0, false); o.ResetAfter != 1 {
					require.Equal(t, int64(1), o.ResetAfter, "%+v state %v", b, st)
				}
			}
		}
	}
}

// A take then its refund at the same instant decide every later schedule
// as if the take never happened.
func TestBackoffRefundExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	for _, b := range boConfigs {
		p, err := core.NewProbe(b)
		require.NoError(t, err)
		for i := 0; i < 3000; i++ {
			st, now := boRandomState(p, rng)
			now += rng.Int64N(int64(3 * time.Second))
			ref := append([]int64(nil), st...)
			c := 1 + rng.Int64N(b.Free)
			if !p.Take(st, now, c, true).Allowed {
				continue
			}
			p.Refund(st, now+rng.Int64N(2)*rng.Int64N(int64(time.Second)), now, c)
			seed := rng.Uint64()
			start := now + int64(time.Second)
			got := boRandomOps(p, st, start, rand.New(rand.NewPCG(seed, 2)), 30)
			want := boRandomOps(p, ref, start, rand.New(rand.NewPCG(seed, 2)), 30)
			sameOutcomes(t, want, got, "%+v", b)
		}
	}
}

// A caller whose now is older than the key's latest failure is never
// admitted where the newest caller would be denied.
func TestBackoffStaleNowNeverMoreLenient(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	for _, b := range boConfigs {
		p, err := core.NewProbe(b)
		require.NoError(t, err)
		for i := 0; i < 3000; i++ {
			st, now := boRandomState(p, rng)
			stale := now - rng.Int64N(int64(5*time.Second))
			c := 1 + rng.Int64N(b.Free)
			newest := p.Take(st, now, c, false)
			old := p.Take(st, stale, c, false)
			if old.Allowed {
				require.True(t, newest.Allowed, "%+v state %v", b, st)
			}
			// What remains as the key stands (a cost of 0): never more
			// for the older caller. (A denied take reports what remains
			// before it, an admitted one after it, so the outcomes above
			// are not comparable when only one of them passes.)
			require.LessOrEqual(t, p.Take(st, stale, 0, false).Remaining, p.Take(st, now, 0, false).Remaining)
		}
	}
}

// Outcomes stay within their bounds and a denial's RetryAfter is exact.
func TestBackoffRetryAfterExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 42))
	for _, b := range boConfigs {
		p, err := core.NewProbe(b)
		require.NoError(t, err)
		for i := 0; i < 3000; i++ {
			st, now := boRandomState(p, rng)
			o := p.Take(st, now, 1, false)
			require.GreaterOrEqual(t, o.Remaining, int64(0))
			require.LessOrEqual(t, o.Remaining, b.Free)
			require.GreaterOrEqual(t, o.ResetAfter, int64(0))
			if o.Allowed {
				continue
			}
			require.True(t, p.Take(st, now+o.RetryAfter, 1, false).Allowed)
			require.False(t, p.Take(st, now+o.RetryAfter-1, 1, false).Allowed)
		}
	}
}
