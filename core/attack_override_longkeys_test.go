package core_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideCacheLongKeys: the override cache's memory is bounded
// by MaxKeys whatever the keys' length, as the deny cache's and the
// heavy-hitter sketch's are. A key is what the caller's key function
// gives (a tenant header's value, whose length the request chooses), and
// the cache kept each one whole: a flood of 2,048 keys of 64 KiB through
// a cache of MaxKeys 1,024 kept 64 MiB. Not parallel: it measures the
// heap.
func TestAttackOverrideCacheLongKeys(t *testing.T) {
	const maxKeys, keyBytes = 1024, 64 << 10
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	def := core.MustPolicy("default", core.Limit{Name: "hour", Algorithm: core.GCRA{Rate: core.PerHour(100)}})
	provider := func(context.Context, string) (*core.Policy, bool, error) { return nil, false, nil }
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	o, err := core.NewOverrides(def, provider, core.OverrideOptions{MaxKeys: maxKeys, TTL: time.Hour}, core.WithClock(clk))
	require.NoError(t, err)
	pad := strings.Repeat("x", keyBytes)
	for i := range 2 * maxKeys {
		r, err := o.Allow(ctx, pad+strconv.Itoa(i)) // a new string each: only the cache may keep it
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("heap grew %.1f MiB", float64(grew)/(1<<20))
	assert.Less(t, grew, int64(4<<20), "the cache keeps its keys' bytes")
	runtime.KeepAlive(o)
}
