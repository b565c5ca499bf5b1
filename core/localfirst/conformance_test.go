package localfirst_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/require"
)

var storeSeq atomic.Int64

// oneNode returns a NewStore of single-node stores on client whose rounds
// never run: what a node decides on its own (the suites check a store
// against the in-memory one, at instants of a fake clock).
func oneNode(t *testing.T) coretest.NewStore {
	_, client := startRedis(t)
	return func(t *testing.T) core.Store {
		s, err := localfirst.New(client, localfirst.Options{Nodes: 1, Prefix: fmt.Sprintf("conf%d:", storeSeq.Add(1))})
		require.NoError(t, err)
		return s
	}
}

// TestPolicyChange runs core's checks of SetPolicy on the algorithms the
// store syncs: counts kept, no key admitted beyond the new limit's burst
// by the change, as the in-memory store decides; incompatible changes
// refused with core.ErrPolicyChange.
func TestPolicyChange(t *testing.T) {
	coretest.RunPolicyChangeOf(t, oneNode(t), func(a core.Algorithm) bool {
		return localfirst.Supports(core.MustPolicy("p", core.Limit{Name: "l", Algorithm: a})) == nil
	})
}

// TestOverrides runs core's checks of per-key overrides on the store.
func TestOverrides(t *testing.T) {
	coretest.RunOverrides(t, oneNode(t))
}
