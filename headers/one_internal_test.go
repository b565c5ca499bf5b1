package headers

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// writeOne writes what writeAll writes, for every draft 11 Writer's choice
// of fields and names and every Result of one limit: admitted, denied,
// never admissible, and altered as a custom Limiter might alter it.
func TestWriteOneAgrees(t *testing.T) {
	var ws []*Writer
	for _, o := range []Options{
		{}, {Omit: XRateLimit}, {Omit: RetryAfter | RateLimitPolicy}, {Omit: RateLimit | XRateLimitReset},
		{Omit: AllFields}, {Names: map[Field]string{RateLimit: "x-rl", XRateLimitLimit: "Limit-Of"}},
	} {
		w, err := New(o)
		require.NoError(t, err)
		ws = append(ws, w)
	}
	rng := rand.New(rand.NewPCG(20261126, 1))
	names := []string{"burst", "", "a b", `q"uote`, "é", strings.Repeat("n", oneHead-5)}
	checked := 0
	for s := range 60 {
		clk := coretest.NewClock(time.Unix(1_767_323_045, rng.Int64N(1e9)))
		var a core.Algorithm = core.GCRA{Rate: core.Per([]int64{1, 10, 1e9}[rng.IntN(3)], time.Minute), Burst: rng.Int64N(20)}
		if s%3 == 0 {
			a = core.FixedWindow{Quota: 1 + rng.Int64N(5), Window: time.Hour}
		}
		p, err := core.NewPolicy("p", core.Limit{Name: names[s%len(names)], Algorithm: a})
		require.NoError(t, err)
		l, err := core.NewLimiter(p, core.WithClock(clk))
		require.NoError(t, err)
		for range 8 {
			cost := int64(1)
			if rng.IntN(5) == 0 {
				cost = 1 << 40
			}
			r, err := l.AllowN(context.Background(), "k", cost)
			require.NoError(t, err)
			for _, res := range []core.Result{r, alterOne(rng, r)} {
				for _, w := range ws {
					d := decision{r: &res, pr: w.policies.get(&res, w.draft)}
					d.judge()
					require.LessOrEqual(t, len(d.pr.rateHead[0]), oneHead)
					one, all := http.Header{}, http.Header{}
					w.writeOne(one, &d)
					d = decision{r: &res, pr: d.pr}
					d.judge()
					w.writeAll(all, &d)
					require.Equal(t, all, one, "%+v", res)
					checked++
				}
			}
			clk.Advance(time.Duration(rng.Int64N(int64(20 * time.Second))))
		}
	}
	require.Equal(t, 60*8*2*len(ws), checked)
}

// alterOne changes the exported fields of r as a custom Limiter might.
func alterOne(rng *rand.Rand, r core.Result) core.Result {
	switch rng.IntN(5) {
	case 0:
		r.Quota = rng.Int64N(1 << 50)
	case 1:
		r.Remaining = -rng.Int64N(100)
	case 2:
		r.Allowed = false
		r.RetryAfter = []time.Duration{0, -time.Second, 1, core.Never, 1<<62 + 7}[rng.IntN(5)]
	case 3:
		r.ResetAfter = []time.Duration{-time.Hour, 0, core.Never}[rng.IntN(3)]
	case 4:
		r.Quota, r.Remaining = -5, 1<<62
	}
	return r
}
