package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPoliciesShareOneLibrary: every policy is decided by one function
// library, whatever its limits. Before, each distinct set of limits was a
// library of its own (about 85 KB of Redis memory each, never unloaded),
// so that 300 per-tenant overrides, or a reload loop changing a quota,
// left 300 libraries in Redis and paid 300 loads. Now FUNCTION LIST holds
// one library, Redis's function memory stays within a few MB (the library
// keeps the deciding functions of a bounded number of policies: see
// TestLibraryGenerations for those it forgets), and each policy decides
// exactly its own limits, on FCALL and on EVAL.
func TestPoliciesShareOneLibrary(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	ctx := context.Background()
	const policies = 300
	for _, noFunctions := range []bool{false, true} {
		t.Run("NoFunctions="+strconv.FormatBool(noFunctions), func(t *testing.T) {
			// The caller's clock, standing still: no unit comes back
			// however slowly the decisions run.
			clk := newClock()
			s := newStore(t, c, redisstore.Options{NoFunctions: noFunctions, CallerClock: true})
			n, passes := policies, 2
			if noFunctions {
				n, passes = 20, 1 // EVAL builds every call's functions anew
			}
			ls := make([]*core.Limiter, n)
			for i := range ls {
				// Burst i%7+1 of GCRA and a sliding window of i%5+2: each
				// policy admits min of the two, a figure of its own.
				p := core.MustPolicy(fmt.Sprint("tenant-", i),
					core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerHour(int64(1000 + i)), Burst: int64(i%7 + 1)}},
					core.Limit{Name: "w", Algorithm: core.SlidingWindow{Quota: int64(i%5 + 2), Window: time.Hour}})
				l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
				require.NoError(t, err)
				ls[i] = l
			}
			// Two passes over every policy, on keys of their own.
			for pass := range passes {
				for i, l := range ls {
					want := min(i%7+1, i%5+2)
					key := fmt.Sprint("k", pass)
					admitted := 0
					for range want + 1 {
						r, err := l.Allow(ctx, key)
						require.NoError(t, err)
						if r.Allowed {
							admitted++
						}
					}
					require.Equal(t, want, admitted, "policy %d, pass %d", i, pass)
				}
			}
		})
	}
	libs, err := c.FunctionList(ctx, redis.FunctionListQuery{}).Result()
	require.NoError(t, err)
	assert.Equal(t, 1, len(libs), "one library for %d policies", policies)
	vm := infoInt(t, c, "memory", "used_memory_vm_functions:")
	require.Positive(t, vm)
	assert.Less(t, vm, int64(8<<20), "Redis's function memory after %d policies", policies)
	t.Logf("used_memory_vm_functions %d bytes after %d policies", vm, policies)
}
