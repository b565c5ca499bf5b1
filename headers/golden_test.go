package headers_test

import (
	"context"
	"flag"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
)

var update = flag.Bool("update", false, "rewrite testdata/write.golden from the current Writer")

// TestWriteGolden pins every value Write and WriteKey produce, byte for
// byte, for a few hundred Results of seeded random policies of one to four
// limits (names that need escaping among them), admitted, denied and never
// admissible, then altered as a custom Limiter might alter them (limit,
// remaining, waits out of range), through Writers of every draft, with and
// without a partition key, omitted fields and renamed fields. The golden
// file was written by the Writer before its values were pre-rendered.
func TestWriteGolden(t *testing.T) {
	got := goldenLines(t)
	const file = "testdata/write.golden"
	if *update {
		require.NoError(t, os.WriteFile(file, []byte(strings.Join(got, "\n")+"\n"), 0o644))
	}
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	want := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i], got[i], "line %d", i+1)
	}
}

var goldenNames = []string{"burst", "daily", "a", "api key", `q"uote`, `back\slash`, "50%", "é", "tab\there", "x"}

func goldenWriters(t *testing.T) []*headers.Writer {
	secret := []byte("golden secret, sixteen bytes at least")
	var ws []*headers.Writer
	for _, o := range []headers.Options{
		{},
		{Draft: headers.DraftIETF7},
		{Draft: headers.DraftIETF6},
		{PartitionKeySecret: secret},
		{Omit: headers.XRateLimit},
		{Draft: headers.DraftIETF6, Omit: headers.RetryAfter | headers.RateLimitPolicy},
		{Draft: headers.DraftIETF7, Names: map[headers.Field]string{headers.RateLimit: "x-rl", headers.XRateLimitReset: "Reset-At"}},
		{PartitionKeySecret: secret, Omit: headers.RateLimit},
	} {
		ws = append(ws, newWriter(t, o))
	}
	return ws
}

// goldenLines decides the seeded scenarios and returns one line per
// Result and Writer: the fields written, sorted, as name=value.
func goldenLines(t *testing.T) []string {
	rng := rand.New(rand.NewPCG(20261125, 12))
	ws := goldenWriters(t)
	var lines []string
	for s := range 40 {
		clk := coretest.NewClock(t0.Add(time.Duration(rng.Int64N(int64(time.Hour)))))
		l := goldenLimiter(t, rng, clk)
		key := "user-" + strconv.Itoa(s)
		for step := range 6 {
			cost := int64(1)
			switch rng.IntN(6) {
			case 0:
				cost = 1 + rng.Int64N(20)
			case 1:
				cost = 1 << 40 // beyond every quota: never admissible
			}
			r, err := l.AllowN(context.Background(), key, cost)
			require.NoError(t, err)
			for v, res := range []core.Result{r, alter(rng, r)} {
				w := ws[(s*6+step+v)%len(ws)]
				h := http.Header{}
				w.WriteKey(h, &res, key)
				lines = append(lines, strconv.Itoa(len(lines))+" "+flatten(h))
			}
			clk.Advance(time.Duration(rng.Int64N(int64(3 * time.Second))))
		}
	}
	return lines
}

func goldenLimiter(t *testing.T, rng *rand.Rand, clk core.Clock) *core.Limiter {
	n := 1 + rng.IntN(core.MaxLimits)
	names := slices.Clone(goldenNames)
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	limits := make([]core.Limit, n)
	for i := range limits {
		period := []time.Duration{time.Second, time.Minute, 90 * time.Second, time.Hour, 24 * time.Hour}[rng.IntN(5)]
		count := []int64{1, 3, 10, 100, 1_000_000_000}[rng.IntN(5)]
		var a core.Algorithm = core.GCRA{Rate: core.Per(count, period), Burst: []int64{0, 1, 5, 20}[rng.IntN(4)]}
		if rng.IntN(3) == 0 {
			a = core.FixedWindow{Quota: count, Window: period}
		}
		limits[i] = core.Limit{Name: names[i], Algorithm: a}
	}
	return newLimiter(t, clk, limits...)
}

// alter changes the exported fields of r as a custom Limiter might.
func alter(rng *rand.Rand, r core.Result) core.Result {
	switch rng.IntN(6) {
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

func flatten(h http.Header) string {
	var kv []string
	for k, vs := range h {
		kv = append(kv, k+"="+strings.Join(vs, "\x1f"))
	}
	slices.Sort(kv)
	return strings.Join(kv, " | ")
}

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
