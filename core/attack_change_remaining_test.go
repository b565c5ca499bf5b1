package core_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// TestAttackLoweredHybridRemainingNeverNegative: a Hybrid key that used 3
// of a quota of 4, its quota then lowered to 1 by SetPolicy, reported
// Remaining −2 (peeked and denied, in the Result and its limit) on the
// memory and the Redis store: its count, kept above the new quota, was
// subtracted from it unclamped, where FixedWindow, SlidingWindow and
// RollingWindow report 0. It reports 0 now, and is denied until its
// window ends. (Every algorithm is checked on every store by
// coretest.RunPolicyChange's RemainingInRange.)
func TestAttackLoweredHybridRemainingNeverNegative(t *testing.T) {
	t.Parallel()
	coretest.RunPolicyChangeRemaining(t, memStores(core.MemoryOptions{}), []core.Limit{
		{Name: "hybrid", Algorithm: core.Hybrid{Quota: 4, Window: 2 * time.Second}},
	})
}
