package redistest

import (
	"context"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vmFunctions returns c's server's INFO used_memory_vm_functions.
func vmFunctions(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	info, err := c.InfoMap(context.Background(), "memory").Result()
	require.NoError(t, err)
	vm, err := strconv.ParseInt(info["Memory"]["used_memory_vm_functions"], 10, 64)
	require.NoError(t, err)
	return vm
}

// TestPoolFunctionMemory: FUNCTION FLUSH leaves the memory of the
// libraries it deletes to the function engine's Lua collector, which runs
// only as the engine allocates again, so that a reused server's
// used_memory_vm_functions held what an earlier test had left (12 MB
// here; up to 3 MB in the redisstore suite, against a new server's
// 33 KB). A server whose function engine holds more than 1 MB once
// emptied is not reused: a test reading that figure (redisstore's
// TestPoliciesShareOneLibrary requires less than 8 MB) sees at most 1 MB
// left by another.
func TestPoolFunctionMemory(t *testing.T) {
	if !pooling {
		t.Skip("no pool outside Linux")
	}
	ctx := context.Background()
	used(t, func(t *testing.T, _ *Server, c *redis.Client) {
		require.NoError(t, c.FunctionLoad(ctx, "#!lua name=big\nlocal keep = {}\n"+
			"redis.register_function('big', function() keep[1] = string.rep('x', 4 * 1024 * 1024) return 1 end)").Err())
		require.NoError(t, c.FCall(ctx, "big", nil).Err())
		require.Greater(t, vmFunctions(t, c), int64(4<<20), "the library's memory")
	})
	vm := vmFunctions(t, Start(t).Client(t))
	assert.LessOrEqual(t, vm, int64(1<<20), "the function engine's memory of the server handed over")
}
