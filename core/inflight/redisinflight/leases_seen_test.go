package redisinflight_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// leaseMembers returns the leases of set with their ends: its members but
// "seen", which scores the set's latest decision on Redis TIME and is no
// lease (see acquire.lua).
func leaseMembers(c redis.Cmdable, set string) ([]redis.Z, error) {
	zs, err := c.ZRangeWithScores(context.Background(), set, 0, -1).Result()
	out := zs[:0]
	for _, z := range zs {
		if z.Member != "seen" {
			out = append(out, z)
		}
	}
	return out, err
}

// leaseCount is the number of leases of set (see leaseMembers).
func leaseCount(t *testing.T, c redis.Cmdable, set string) int64 {
	t.Helper()
	zs, err := leaseMembers(c, set)
	require.NoError(t, err)
	return int64(len(zs))
}
