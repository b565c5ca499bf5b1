package core_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// TestAttackRefundAfterPolicyReturnsGivesNothing: a refund of a decision
// taken before a change gives nothing back to a limit changed since, even
// when the limiter decides again the very *Policy it took under (an
// operator's toggle, an Overrides provider handing out one *Policy per
// plan). Before, a policy back in force was told from the binding that
// decided by its pointer alone: after slow (TokenBucket 1/min, burst 5) →
// fast (100/s) → slow, the refunds of the 5 takes made under slow gave
// back units the fast limit's refill had given back already, and the key
// was admitted 4 more at once (14 in 50 ms where the two limits grant 10);
// 0 now. coretest.RunPolicyChange runs it on every store
// (RefundAfterReturn).
func TestAttackRefundAfterPolicyReturnsGivesNothing(t *testing.T) {
	t.Parallel()
	coretest.RunPolicyReturnRefund(t, memStores(core.MemoryOptions{}))
}
