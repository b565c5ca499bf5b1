package redisstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestLibraryRefusesUnboundedLimits: the library decides with whatever
// limits a call names, so it checks them itself (spec.lua) and answers an
// error, deciding nothing, for limits the store would never name: found
// by an adversarial review, a caller of the library alone (no EVAL, no
// other command) named a sliding log of 30 million entries, which held
// Redis 2.8 s and 1.1 GB of its memory. The store's own policies pass.
func TestLibraryRefusesUnboundedLimits(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	sc := loadFunctions(t, c, core.MustPolicy("ok", core.Limit{Name: "l", Algorithm: core.SlidingLog{Quota: MaxSlidingLogQuota, Window: time.Minute}}))
	take := func(spec string) error {
		return c.FCall(ctx, sc.takeFn, []string{"{spec}:0"}, spec).Err()
	}
	require.NoError(t, take(sc.spec))
	for name, spec := range map[string]string{
		"log beyond the store's":      "slidinglog,30000000,1000000,false",
		"periods beyond the store's":  "rollingwindow,10,10,1000,1025",
		"unknown algorithm":           "gcrb,1000,1000,1,nil",
		"too few parameters":          "gcra,1000,1000,1",
		"too many parameters":         "gcra,1000,1000,1,nil,5",
		"a boolean for a number":      "gcra,true,1000,1,nil",
		"nil for a number":            "gcra,1000,nil,1,nil",
		"a number for a boolean":      "fixedwindow,10,1000,1",
		"zero interval":               "gcra,0,1000,1,nil",
		"negative quota":              "slidingwindow,-1,1000",
		"fractional window":           "slidingwindow,10,1000.5",
		"integer beyond 2^53":         "fixedwindow,9007199254740994,1000,false",
		"infinite rate":               "tokenbucket,inf,10",
		"not a number":                "tokenbucket,nan,10",
		"rate of 0":                   "tokenbucket,0,10",
		"no limits":                   ";;",
		"empty":                       "",
		"garbage":                     "x",
		"a valid limit then garbage":  "gcra,1000,1000,1,nil;x,1",
		"more limits than any policy": "slidingwindow,1,1" + strings.Repeat(";slidingwindow,1,1", store.MaxLimits),
		"100,000 limits":              "slidingwindow,1,1" + strings.Repeat(";slidingwindow,1,1", 100_000),
	} {
		err := take(spec)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "floodgate: policy argument", name)
	}
	err := c.FCall(ctx, sc.takeFn, []string{"{spec}:0"}).Err()
	require.Error(t, err, "no policy argument")
	require.Contains(t, err.Error(), "floodgate: policy argument")
	n, err := c.Exists(ctx, "{spec}:0").Result()
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "only the valid take wrote")
}

// TestLibraryGenerations: a library keeping the functions of 2 policies
// per generation (the store's keeps 512) decides 7 policies called in
// turn, each forgotten and built again over and over, and 2 called
// between others, found in one generation or the other, exactly: each
// policy's key admits its own burst, then nothing.
func TestLibraryGenerations(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	f := newFunctions(2)
	require.NoError(t, c.FunctionLoad(ctx, f.lib).Err())
	var scs []*compiled
	for i := range 7 {
		sc, err := compile(core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: int64(i + 1)}}))
		require.NoError(t, err)
		sc.functions = f
		scs = append(scs, sc)
	}
	admitted := make([]int, len(scs))
	at := time.Now().UnixMicro() // every take at one instant (take.lua's cost, now): none recovers
	take := func(i int) {
		rep, err := fcall(ctx, c, scs[i], f.takeFn, []string{fmt.Sprintf("{gen}:%d", i)}, int64(1), at).Text()
		require.NoError(t, err)
		require.Len(t, rep, shortRecord) // a take of a policy of one GCRA limit (see step.lua)
		o, ok := word(rep, 0)
		require.True(t, ok)
		if o >= 0 { // an admission
			admitted[i]++
		}
	}
	for round := range 10 {
		for i := range scs { // every policy in turn: each built again
			take(i)
		}
		for range 3 { // two policies between the others
			take(round % 2)
			take(2 + round%5)
		}
	}
	for i, n := range admitted {
		require.Equal(t, i+1, n, "policy of burst %d", i+1)
	}
}
