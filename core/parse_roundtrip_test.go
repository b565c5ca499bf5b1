package core_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// canonical returns a with every default filled in: what ParseAlgorithm
// returns for a.String().
func canonical(a core.Algorithm) core.Algorithm {
	switch a := a.(type) {
	case core.GCRA:
		return a.WithDefaults()
	case core.TokenBucket:
		return a.WithDefaults()
	case core.LeakyBucket:
		return a.WithDefaults()
	case core.RollingWindow:
		if a.PeriodCap == 0 {
			a.PeriodCap = a.Quota
		}
		return a
	case core.WarmUp:
		if a.ColdFactor == 0 {
			a.ColdFactor = 3
		}
		return a
	case core.Backoff:
		return a.WithDefaults()
	}
	return a
}

// algorithmOf builds an algorithm of kind (mod 10) from raw fields, valid
// or not: the fuzz target's and the random tests' generator.
func algorithmOf(kind uint8, n1, n2 int64, d1, d2, d3, d4 time.Duration, f float64, flag bool) core.Algorithm {
	r := core.Per(n1, d1)
	switch kind % 10 {
	case 0:
		return core.GCRA{Rate: r, Burst: n2}
	case 1:
		return core.TokenBucket{Rate: r, Burst: n2}
	case 2:
		return core.LeakyBucket{Rate: r, Capacity: n2, NoDelay: int64(d2)}
	case 3:
		return core.FixedWindow{Quota: n1, Window: d1, Anchored: flag}
	case 4:
		return core.SlidingWindow{Quota: n1, Window: d1}
	case 5:
		return core.SlidingLog{Quota: n1, Window: d1, CountRejected: flag}
	case 6:
		return core.Hybrid{Quota: n1, Window: d1}
	case 7:
		return core.RollingWindow{Quota: n1, Window: d1, Period: d2, PeriodCap: n2}
	case 8:
		return core.WarmUp{Rate: r, WarmUp: d2, ColdFactor: f}
	default:
		return core.Backoff{Free: n1, Window: d1, Base: d2, Max: d3, Forgive: d4}
	}
}

// randomAlgorithm draws an algorithm whose fields are mostly, not always,
// in range: counts and durations log-uniform up to their bounds, often
// round numbers, sometimes 0 or out of range.
func randomAlgorithm(rng *rand.Rand) core.Algorithm {
	count := func() int64 {
		switch rng.IntN(12) {
		case 0:
			return 0
		case 1:
			return -rng.Int64N(5)
		case 2:
			return math.MaxInt64 >> rng.IntN(40)
		}
		return 1 + rng.Int64N(int64(1)<<rng.IntN(34))
	}
	units := []time.Duration{1, time.Microsecond, time.Millisecond, time.Second, time.Minute, time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}
	dur := func() time.Duration {
		switch rng.IntN(14) {
		case 0:
			return 0
		case 1:
			return -time.Duration(rng.Int64N(5))
		case 2:
			return time.Duration(1<<60 - rng.Int64N(3) + 1)
		case 3:
			return time.Duration(1 + rng.Int64N(1<<60))
		}
		u := units[rng.IntN(len(units))]
		return u * time.Duration(1+rng.Int64N(100))
	}
	f := 0.0
	switch rng.IntN(4) {
	case 1:
		f = 1 + rng.Float64()*10
	case 2:
		f = float64(rng.IntN(8))
	case 3:
		f = math.Ldexp(1+rng.Float64(), rng.IntN(70)-10)
	}
	d1, d2 := dur(), dur()
	if rng.IntN(3) == 0 && d1 > 0 { // a rolling period that divides the window
		d2 = d1 / time.Duration(1+rng.IntN(30))
		d1 = d2 * time.Duration(max(1, d1/max(d2, 1)%40))
	}
	n2 := count()
	if rng.IntN(4) == 0 {
		n2 = 0
	}
	return algorithmOf(uint8(rng.IntN(10)), count(), n2, d1, d2, dur(), dur(), f, rng.IntN(2) == 0)
}

// checkRoundTrip asserts the properties of String and ParseAlgorithm for
// any a: String never panics; a.String() parses exactly when a is valid,
// to a with its defaults filled in, whose String is the same; and the
// error for an invalid a is a ParseError.
func checkRoundTrip(t *testing.T, a core.Algorithm) {
	t.Helper()
	s := a.String()
	b, err := core.ParseAlgorithm(s)
	if verr := a.Validate(); verr != nil {
		require.Error(t, err, "%#v is invalid (%v) but %q parses", a, verr, s)
		var pe *core.ParseError
		require.True(t, errors.As(err, &pe), "%q: %v", s, err)
		require.ErrorIs(t, err, core.ErrInvalidConfig)
		return
	}
	require.NoError(t, err, "%#v", a)
	require.Equal(t, canonical(a), b, "%q", s)
	require.Equal(t, s, b.String())
}

// Random algorithm values, valid and invalid, round-trip through String.
func TestAlgorithmStringRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 1))
	n := 20_000
	if testing.Short() {
		n = 5_000
	}
	valid := map[string]int{}
	for range n {
		a := randomAlgorithm(rng)
		checkRoundTrip(t, a)
		if a.Validate() == nil {
			valid[fmt.Sprintf("%T", a)]++
		}
	}
	// Every algorithm got valid samples (the test is not vacuous).
	require.Len(t, valid, 10, "%v", valid)
	for k, v := range valid {
		assert.Greater(t, v, n/200, k)
	}
}

// Random policies of random names and algorithms round-trip through
// Policy.String and ParsePolicy.
func TestPolicyStringRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 2))
	names := []string{"", "api", "burst", "daily", "second", "minute", "hour", "day", "15m", "a b", "x:y", "a;b", `q"`, "é", "\u00ff", "-", "."}
	n := 3_000
	if testing.Short() {
		n = 1_000
	}
	for range n {
		k := 1 + rng.IntN(core.MaxLimits)
		var limits []core.Limit
		used := map[string]bool{}
		for len(limits) < k {
			a := randomAlgorithm(rng)
			if a.Validate() != nil {
				continue
			}
			name := names[rng.IntN(len(names))]
			if used[name] {
				continue
			}
			used[name] = true
			limits = append(limits, core.Limit{Name: name, Algorithm: a, Shadow: len(limits) > 0 && rng.IntN(3) == 0})
		}
		rng.Shuffle(len(limits), func(i, j int) { limits[i], limits[j] = limits[j], limits[i] })
		p := core.MustPolicy(names[rng.IntN(len(names))], limits...)
		q, err := core.ParsePolicy(p.Name(), p.String())
		require.NoError(t, err, "%q", p.String())
		require.Equal(t, p.Name(), q.Name())
		want := p.AllLimits()
		for i := range want {
			want[i].Algorithm = canonical(want[i].Algorithm)
		}
		require.Equal(t, want, q.AllLimits(), "%q", p.String())
		require.Equal(t, p.String(), q.String())
	}
}
