package core_test

import (
	"context"
	"math/rand/v2"
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
	t.Parallel()
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
	t.Parallel()
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
		{"fixed", core.FixedWindow{Quota: 5, Window: 5 * time.Second}, 5 * time.Second},
		{"sliding-log", core.SlidingLog{Quota: 5, Window: 5 * time.Second}, 5 * time.Second},
		{"sliding-window", core.SlidingWindow{Quota: 5, Window: 5 * time.Second}, 10 * time.Second},
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
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, core.Limit{Name: "l", Algorithm: core.FixedWindow{Quota: 3, Window: time.Hour}})
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
	t.Parallel()
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

// FuzzRefunds applies random takes and refunds (of any earlier decision,
// repeated, late) to every algorithm on a clock that only moves forwards:
// a second refund of a decision is refused, and no instant ever admits
// more than the quota at once, less the refunds made at it of takes that
// still held something (each gives back at most its cost).
func FuzzRefunds(f *testing.F) {
	f.Add([]byte{6, 0, 6, 1, 6, 2, 6, 3, 6, 4, 0, 200, 7, 0, 7, 1, 7, 2, 6, 5, 6, 6})
	f.Add([]byte("take take take, wait, refund them all, take again"))
	const q, w = 5, 4 * time.Second
	f.Fuzz(func(t *testing.T, ops []byte) {
		ctx := context.Background()
		for _, a := range allAlgorithms(q, w) {
			clk := coretest.NewClock(t0)
			l := newLimiter(t, clk, core.Limit{Name: "x", Algorithm: a})
			bound := int64(q)
			if _, ok := a.(core.Backoff); ok {
				bound += 3 // the take that sets a lock passes whole (cost ≤ 3)
			}
			var taken []core.Result
			spent := map[int]bool{}
			net := map[int64]int64{}
			for i := 0; i+1 < len(ops) && i < 400; i += 2 {
				op, arg := ops[i], ops[i+1]
				now := clk.Now()
				switch op % 8 {
				case 0, 1, 2:
					clk.Advance(time.Duration(arg) * 25 * time.Millisecond)
					continue
				case 6, 7:
					if len(taken) == 0 {
						continue
					}
					j := int(arg) % len(taken)
					tk := taken[j]
					_, err := l.Refund(ctx, "k", tk)
					if spent[j] {
						if err != nil {
							require.ErrorIs(t, err, core.ErrRefunded, "%T", a)
						}
						continue
					}
					require.NoError(t, err, "%T", a)
					spent[j] = true
					if now.Before(tk.At().Add(tk.ResetAfter)) {
						net[now.UnixNano()] -= tk.Cost
					}
				default:
					r, err := l.AllowN(ctx, "k", 1+int64(arg%3))
					require.NoError(t, err)
					if r.Allowed {
						taken = append(taken, r)
						net[now.UnixNano()] += r.Cost
					}
				}
				require.LessOrEqual(t, net[now.UnixNano()], bound, "%T%+v: admitted at one instant, less refunds", a, a)
			}
		}
	})
}

// TestBackoffRefundKeepsALaterLock: refunding an earlier failure does not
// lift the lock later failures set while failures beyond Free remain (it
// used to, as the refund moved the state back to the earlier instant).
func TestBackoffRefundKeepsALaterLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, core.Limit{Name: "b", Algorithm: core.Backoff{Free: 5, Window: time.Hour, Base: time.Minute, Max: time.Hour}})
	take := func(cost int64) core.Result {
		t.Helper()
		r, err := l.AllowN(ctx, "k", cost)
		require.NoError(t, err)
		require.True(t, r.Allowed)
		return r
	}
	take(4)
	a := take(1) // 5: still free
	clk.Advance(time.Second)
	take(1) // 6: locked for 1 min
	clk.Advance(61 * time.Second)
	take(1) // 7: locked for 2 min
	clk.Advance(time.Second)
	_, err := l.Refund(ctx, "k", a) // 6 failures: still beyond Free
	require.NoError(t, err)
	p, err := l.Peek(ctx, "k", 1)
	require.NoError(t, err)
	assert.False(t, p.Allowed, "6 failures beyond a Free of 5 stay locked")
}

// TestKeptTakesConformAsIfRefundedNeverHappened is the model check of the
// rate algorithms: over random schedules of takes and refunds (late,
// repeated, of any earlier decision) on a forward-moving clock, the takes
// that were admitted and not refunded are replayed alone through an ideal
// GCRA meter (TAT = max(TAT, t) + cost·I, admitted while TAT − t ≤
// burst·I): as if the refunded takes had never happened.
//
// They conform exactly (within the algorithm's own rounding). Before
// refunds were single-use and bounded by the take's hold, the worst was
// 14.8 intervals, more than three bursts; before the refunds of a key
// were logged (lowerlog.go), 1.36: a take's hold ended where its span
// ended when it was taken, and when an earlier take was refunded first the
// span moved down, so that the later refund gave back what had drained
// since.
func TestKeptTakesConformAsIfRefundedNeverHappened(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const burst = 4
	iv := 250 * time.Millisecond
	cases := []struct {
		name  string
		a     core.Algorithm
		slack time.Duration // the algorithm's own rounding, per take
	}{
		{"gcra", core.GCRA{Rate: core.PerSecond(4), Burst: burst}, 0},
		{"leaky", core.LeakyBucket{Rate: core.PerSecond(4), Capacity: burst, NoDelay: burst}, 0},
		{"token", core.TokenBucket{Rate: core.PerSecond(4), Burst: burst}, time.Nanosecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(len(c.name))))
			worst := int64(0)
			for range 1000 {
				clk := coretest.NewClock(t0)
				l := newLimiter(t, clk, core.Limit{Name: "l", Algorithm: c.a})
				type take struct {
					r        core.Result
					refunded bool
				}
				var takes []*take
				for range 80 {
					switch k := rng.IntN(10); {
					case k < 3:
						clk.Advance(time.Duration(rng.Int64N(int64(2 * iv))))
					case k < 6 && len(takes) > 0:
						tk := takes[rng.IntN(len(takes))]
						_, err := l.Refund(ctx, "k", tk.r)
						if tk.refunded {
							if err != nil { // else late: the take holds nothing
								require.ErrorIs(t, err, core.ErrRefunded)
							}
						} else {
							require.NoError(t, err)
							tk.refunded = true
						}
					default:
						r, err := l.AllowN(ctx, "k", 1+rng.Int64N(2))
						require.NoError(t, err)
						if r.Allowed {
							takes = append(takes, &take{r: r})
						}
					}
				}
				// Replay the kept takes alone.
				tat, slack := int64(0), int64(0)
				for i, tk := range takes {
					if tk.refunded {
						continue
					}
					at := tk.r.At().UnixNano()
					tat = max(tat, at) + tk.r.Cost*int64(iv)
					slack += int64(c.slack)
					if ex := tat - at - burst*int64(iv) - slack; ex > worst {
						worst = ex
					}
					require.LessOrEqual(t, tat-at, burst*int64(iv)+slack,
						"kept take %d at +%v does not conform", i, tk.r.At().Sub(t0))
				}
			}
			t.Logf("worst excess %v (%.2f intervals)", time.Duration(worst), float64(worst)/float64(iv))
		})
	}
}
