package core_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestRefundsMatchIdealMeterOnMemory replays random schedules of takes and
// refunds (in any order) on the in-memory store, in the word mode (GCRA
// alone) and the locked mode (GCRA beside a window limit), and compares
// after every step the key's GCRA debt with an ideal meter's replaying
// only the takes not refunded. With the clock advancing, never below it:
// no over-admission (a refund late enough that its take has drained gives
// back nothing, though in the ideal meter the takes queued after it would
// have drained too, so the debt may be above). At one instant, where every
// take still holds its whole span, equal to it: the in-memory store's log
// of refunds is exact, and every refund gives back what its take holds.
// Before the log ordered the takes of one instant by their marks, about
// 1% of the one-instant steps were above (refunds in an order other than
// LIFO gave back less), and a few advancing schedules below (3,000 runs).
func TestRefundsMatchIdealMeterOnMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const burst = 6
	iv := time.Second
	g := core.GCRA{Rate: core.Per(1, iv), Burst: burst}
	policies := map[string]*core.Policy{
		"word":   core.MustPolicy("p", core.Limit{Name: "g", Algorithm: g}),
		"locked": core.MustPolicy("p", core.Limit{Name: "g", Algorithm: g}, core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 1 << 30, Window: time.Hour}}),
	}
	for name, p := range policies {
		for _, advance := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/advance=%v", name, advance), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(11, uint64(len(name))))
				for run := range 1000 {
					clk := coretest.NewClock(t0)
					l, err := core.NewLimiter(p, core.WithClock(clk))
					require.NoError(t, err)
					type take struct {
						r        core.Result
						refunded bool
					}
					var takes []*take
					var log []string
					for step := range 40 {
						switch k := rng.IntN(10); {
						case k < 2 && advance:
							d := time.Duration(rng.Int64N(int64(2 * iv)))
							clk.Advance(d)
							log = append(log, fmt.Sprintf("advance %v", d))
						case k < 5:
							var open []int
							for i, tk := range takes {
								if !tk.refunded {
									open = append(open, i)
								}
							}
							if len(open) == 0 {
								continue
							}
							i := open[rng.IntN(len(open))]
							_, err := l.Refund(ctx, "k", takes[i].r)
							require.NoError(t, err)
							takes[i].refunded = true
							log = append(log, fmt.Sprintf("refund #%d", i))
						default:
							c := 1 + rng.Int64N(3)
							r, err := l.AllowN(ctx, "k", c)
							require.NoError(t, err)
							if r.Allowed {
								takes = append(takes, &take{r: r})
								log = append(log, fmt.Sprintf("#%d take %d", len(takes)-1, c))
							}
						}
						now := clk.Now().UnixNano()
						tat := int64(0)
						for _, tk := range takes {
							if !tk.refunded {
								tat = max(tat, tk.r.At().UnixNano()) + tk.r.Cost*int64(iv)
							}
						}
						ideal := max(0, tat-now)
						pk, err := l.Peek(ctx, "k", 1)
						require.NoError(t, err)
						lr := pk.Limits()[0]
						debt := int64(lr.ResetAfter)
						if lr.Allowed {
							debt -= int64(iv)
						}
						require.GreaterOrEqual(t, debt, ideal, "run %d step %d: over-admission after %v", run, step, log)
						if !advance {
							require.Equal(t, ideal, debt, "run %d step %d: a refund gave back less than its take held, after %v", run, step, log)
						}
					}
				}
			})
		}
	}
}
