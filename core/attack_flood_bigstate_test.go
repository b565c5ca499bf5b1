package core_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With default options, a policy whose state is large keeps as many keys
// as fit in DefaultMaxStateBytes. Under a flood of twice that many
// distinct one-request keys, every key held at its limit is still denied,
// new clients get their full quota, the table keeps at most its MaxKeys,
// and its slots take at most DefaultMaxStateBytes plus a quarter of heap:
// for policies of one, two and four SlidingLog limits of the largest quota
// (512 KiB of state per limit and key) and of four RollingWindows of the
// most periods. Not parallel: it measures the heap.
func TestAttackKeyFloodLargeStateDefaultOptions(t *testing.T) {
	const victims, newcomers = 16, 100
	logs := func(n int) []core.Limit {
		var ls []core.Limit
		for i := range n {
			ls = append(ls, core.Limit{Name: fmt.Sprint("log", i),
				Algorithm: core.SlidingLog{Quota: core.MaxSlidingLogQuota, Window: time.Duration(i+1) * time.Hour}})
		}
		return ls
	}
	var rolling []core.Limit
	for i := range 4 {
		rolling = append(rolling, core.Limit{Name: fmt.Sprint("rolling", i),
			Algorithm: core.RollingWindow{Quota: 1 << 20, Window: time.Duration(core.MaxRollingPeriods) * time.Duration(i+1) * time.Second, Period: time.Duration(i+1) * time.Second}})
	}
	for _, tc := range []struct {
		name   string
		limits []core.Limit
	}{{"log1", logs(1)}, {"log2", logs(2)}, {"log4", logs(4)}, {"rolling4", rolling}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			p := core.MustPolicy(tc.name, tc.limits...)
			quota := int64(core.MaxSlidingLogQuota)
			if tc.name == "rolling4" {
				quota = 1 << 20
			}
			do := func(tb store.Table, op store.Op, key string, cost, now int64) bool {
				d, err := tb.Do(ctx, store.Request{Op: op, Key: key, Cost: cost, Now: now})
				require.NoError(t, err)
				for _, o := range d.Outcomes[:len(tc.limits)] {
					if !o.Allowed {
						return false
					}
				}
				return true
			}
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			ms, err := core.NewMemoryStore(core.MemoryOptions{})
			require.NoError(t, err)
			tb, err := ms.Bind(p)
			require.NoError(t, err)
			maxKeys := ms.AppendUsage(nil)[0].MaxKeys
			require.Greater(t, maxKeys, victims)

			now := coretest.T0.UnixNano()
			for i := range victims {
				require.True(t, do(tb, store.OpTake, fmt.Sprint("victim-", i), quota, now), "a new key's full quota (cost above 1)")
			}
			for i := range 2 * maxKeys {
				now += int64(time.Millisecond)
				require.True(t, do(tb, store.OpTake, fmt.Sprint("flood-", i), 1, now))
				require.LessOrEqual(t, core.TableLen(tb), maxKeys)
			}
			forgotten := 0
			for i := range victims {
				if do(tb, store.OpPeek, fmt.Sprint("victim-", i), 1, now) {
					forgotten++
				}
			}
			assert.Zero(t, forgotten, "victims at their limit forgotten by a flood of %d one-request keys (MaxKeys %d)", 2*maxKeys, maxKeys)
			for i := range newcomers {
				now += int64(time.Millisecond)
				key := fmt.Sprint("new-", i)
				require.True(t, do(tb, store.OpTake, key, quota, now), "a newcomer's full quota")
				require.False(t, do(tb, store.OpTake, key, 1, now), "a newcomer past its quota")
			}
			runtime.GC()
			runtime.ReadMemStats(&m1)
			grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
			t.Logf("MaxKeys %d, %d of %d victims forgotten, heap grew %.1f MiB", maxKeys, forgotten, victims, float64(grew)/(1<<20))
			assert.LessOrEqual(t, grew, int64(core.DefaultMaxStateBytes)*5/4+1<<20, "heap beyond the default bound and its quarter of free slots")
			runtime.KeepAlive(tb)
		})
	}
}
