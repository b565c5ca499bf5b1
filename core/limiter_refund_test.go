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

// admitted takes cost 1 for key until denied (at most 1000) and returns how
// many passed.
func admitted(t *testing.T, l *core.Limiter, key string) int {
	t.Helper()
	for n := range 1000 {
		r, err := l.Allow(context.Background(), key)
		require.NoError(t, err)
		if !r.Allowed {
			return n
		}
	}
	return 1000
}

// TestRefundOnce is the figure: 5 per hour, one decision refunded
// 100 times (and through copies) gives back one request, not 100.
func TestRefundOnce(t *testing.T) {
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, core.Limit{Name: "h", Algorithm: core.GCRA{Rate: core.PerHour(5)}})
	r, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	_, err = l.Refund(ctx, "k", r)
	require.NoError(t, err)
	cp := r
	for range 100 {
		_, err = l.Refund(ctx, "k", r)
		require.ErrorIs(t, err, core.ErrRefunded)
		_, err = l.Refund(ctx, "k", cp)
		require.ErrorIs(t, err, core.ErrRefunded)
	}
	assert.Equal(t, 5, admitted(t, l, "k"))
}

// TestLateRefundsHoldNothing: a refund made after the key's state has
// moved past the take (drained, refilled, waited out) gives nothing back,
// so taking the burst, refunding last period's burst and taking again
// admits one burst, not two.
func TestLateRefundsHoldNothing(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		a    core.Algorithm
		gap  time.Duration // from the first burst until the key has fully recovered
	}{
		{"gcra", core.GCRA{Rate: core.PerSecond(1), Burst: 5}, 5 * time.Second},
		{"leaky", core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 5, NoDelay: 5}, 5 * time.Second},
		{"token", core.TokenBucket{Rate: core.PerSecond(1), Burst: 5}, 5 * time.Second},
		{"hybrid", core.Hybrid{Quota: 5, Window: 5 * time.Second}, 10 * time.Second},
		{"warmup", core.WarmUp{Rate: core.PerSecond(1), WarmUp: time.Second, ColdFactor: 1}, 10 * time.Second},
		{"fixed", core.FixedWindow{Limit: 5, Window: 5 * time.Second}, 5 * time.Second},
		{"sliding-log", core.SlidingLog{Limit: 5, Window: 5 * time.Second}, 5 * time.Second},
		{"sliding-window", core.SlidingWindow{Limit: 5, Window: 5 * time.Second}, 10 * time.Second},
		{"rolling", core.RollingWindow{Quota: 5, Window: 5 * time.Second, Period: time.Second}, 5 * time.Second},
		{"backoff", core.Backoff{Free: 5, Window: 5 * time.Second, Base: time.Second, Max: time.Second, Forgive: time.Second}, 5 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			l := newLimiter(t, clk, core.Limit{Name: "l", Algorithm: c.a})
			var first []core.Result
			for range 100 {
				r, err := l.Allow(ctx, "k")
				require.NoError(t, err)
				if !r.Allowed {
					break
				}
				first = append(first, r)
			}
			clk.Set(t0.Add(c.gap))
			burst := admitted(t, l, "k")
			require.Positive(t, burst)
			for _, r := range first {
				_, err := l.Refund(ctx, "k", r)
				require.NoError(t, err)
			}
			assert.Zero(t, admitted(t, l, "k"), "late refunds of %d takes, after a burst of %d", len(first), burst)
		})
	}
}

// TestRefundAfterReset: a reset forgets what a decision took, so its
// refund afterwards gives nothing back.
func TestRefundAfterReset(t *testing.T) {
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, core.Limit{Name: "l", Algorithm: core.FixedWindow{Limit: 3, Window: time.Hour}})
	r, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	clk.Advance(time.Second)
	require.NoError(t, l.Reset(ctx, "k"))
	clk.Advance(time.Second)
	assert.Equal(t, 3, admitted(t, l, "k"))
	_, err = l.Refund(ctx, "k", r)
	require.NoError(t, err)
	assert.Zero(t, admitted(t, l, "k"))
}

// TestRefundRefusals: foreign results, expired windows and a full ledger
// are refused, and a refused refund changes nothing.
func TestRefundRefusals(t *testing.T) {
	ctx := context.Background()
	p := core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.GCRA{Rate: core.PerHour(60)}})
	clk := coretest.NewClock(t0)
	l, err := core.NewLimiter(p, core.WithClock(clk), core.WithRefundLedger(16, 30*time.Second))
	require.NoError(t, err)
	other, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)

	r, err := l.Allow(ctx, "a")
	require.NoError(t, err)
	_, err = l.Refund(ctx, "b", r)
	assert.ErrorIs(t, err, core.ErrRefundForeign, "another key")
	_, err = other.Refund(ctx, "a", r)
	assert.ErrorIs(t, err, core.ErrRefundForeign, "another limiter")
	_, err = l.Refund(ctx, "a", core.Result{})
	assert.ErrorIs(t, err, core.ErrNotTaken)

	clk.Advance(40 * time.Second) // the take holds a minute; its refund window (30 s) has passed
	_, err = l.Refund(ctx, "a", r)
	assert.ErrorIs(t, err, core.ErrRefundExpired)

	// 16 entries, 1 per shard: refunds past a full shard are refused and
	// the cost stays taken.
	var taken []core.Result
	for range 40 {
		r, err := l.Allow(ctx, "c")
		require.NoError(t, err)
		require.True(t, r.Allowed)
		taken = append(taken, r)
	}
	ok, full := 0, 0
	for _, r := range taken {
		_, err := l.Refund(ctx, "c", r)
		switch {
		case err == nil:
			ok++
		case assert.ErrorIs(t, err, core.ErrRefundLedgerFull):
			full++
		}
	}
	assert.Equal(t, 40, ok+full)
	assert.LessOrEqual(t, ok, 16)
	assert.Positive(t, full)
	assert.Equal(t, 60-40+ok, admitted(t, l, "c"), "refused refunds gave nothing back")
	// Once the window has passed, the entries go and refunds are accepted again.
	clk.Advance(time.Hour)
	r, err = l.Allow(ctx, "d")
	require.NoError(t, err)
	clk.Advance(2 * time.Minute)
	r2, err := l.Allow(ctx, "d")
	require.NoError(t, err)
	_, err = l.Refund(ctx, "d", r2)
	assert.NoError(t, err)
	_ = r
}
