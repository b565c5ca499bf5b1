package headers_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
)

// writeOne, write's path for a draft 11 Writer and a Result of one limit,
// writes what writeAll, the path for every other, writes: for every
// choice of fields and names, on the golden scenarios' Results (admitted,
// denied, never admissible, and altered as a custom Limiter might).
func TestWriteOneAgrees(t *testing.T) {
	var ws []*headers.Writer
	for _, o := range []headers.Options{
		{}, {Omit: headers.XRateLimit}, {Omit: headers.RetryAfter | headers.RateLimitPolicy},
		{Omit: headers.RateLimit | headers.XRateLimitReset}, {Omit: headers.AllFields},
		{Names: map[headers.Field]string{headers.RateLimit: "x-rl", headers.XRateLimitLimit: "Limit-Of"}},
	} {
		ws = append(ws, newWriter(t, o))
	}
	rng := rand.New(rand.NewPCG(20261126, 1))
	agreed := 0
	for s := range 120 {
		clk := coretest.NewClock(t0.Add(time.Duration(rng.Int64N(int64(time.Hour)))))
		l := goldenLimiter(t, rng, clk)
		for range 6 {
			cost := int64(1)
			if rng.IntN(5) == 0 {
				cost = 1 << 40
			}
			r, err := l.AllowN(context.Background(), "user-"+strconv.Itoa(s), cost)
			require.NoError(t, err)
			for _, res := range []core.Result{r, alter(rng, r)} {
				for _, w := range ws {
					one, all := headers.WriteOneAndAll(w, &res)
					if one == nil {
						require.Greater(t, res.NumLimits(), 1)
						continue
					}
					require.Equal(t, all, one, "%+v", res)
					h := http.Header{}
					w.Write(h, &res)
					require.Equal(t, all, h)
					agreed++
				}
			}
			clk.Advance(time.Duration(rng.Int64N(int64(20 * time.Second))))
		}
	}
	require.Greater(t, agreed, 1000)
}
