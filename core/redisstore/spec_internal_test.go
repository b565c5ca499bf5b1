package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
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
		"more limits than any policy": "slidingwindow,1,1" + strings.Repeat(";slidingwindow,1,1", 64),
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
