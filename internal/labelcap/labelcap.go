// Package labelcap bounds the distinct policy and limit names an exporter
// gives series of their own (observe/promobserve, observe/otelobserve): a
// policy name may come from anywhere (an Overrides provider naming a
// policy per tenant, tenants coming and going), and a series made for
// every name ever decided would grow without bound, in the process and in
// the metrics backend.
package labelcap

import (
	"sync"

	"github.com/floodgate-go/floodgate/core"
)

// Other is the policy and limit label value of a decision whose names
// are beyond the bound.
const Other = "(other)"

// Names is the set of names given labels of their own: the first max
// policy names seen, and of their limit names the first max ×
// core.MaxLimits pairs (a policy has at most core.MaxLimits limits at a
// time; the pairs bound those changed later). It is safe for concurrent
// use; a name seen before costs a read lock and a map lookup.
type Names struct {
	max int

	mu       sync.RWMutex
	policies map[string]struct{}
	pairs    map[[2]string]struct{}
}

// New returns an empty Names admitting max policy names.
func New(max int) *Names {
	return &Names{max: max, policies: map[string]struct{}{}, pairs: map[[2]string]struct{}{}}
}

// Labels returns the label values of a decision of policy, binding (or
// shadow) limit limit: the names themselves while the bound admits them,
// else Other for the policy and the limit (a policy beyond the bound), or
// for the limit alone (a pair beyond it). A name admitted once stays
// admitted.
func (n *Names) Labels(policy, limit string) (string, string) {
	pair := [2]string{policy, limit}
	n.mu.RLock()
	_, known := n.policies[policy]
	_, paired := n.pairs[pair]
	full, pairsFull := len(n.policies) >= n.max, len(n.pairs) >= n.max*core.MaxLimits
	n.mu.RUnlock()
	switch {
	case known && paired:
		return policy, limit
	case !known && full:
		return Other, Other
	case known && pairsFull:
		return policy, Other
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.policies[policy]; !ok {
		if len(n.policies) >= n.max {
			return Other, Other
		}
		n.policies[policy] = struct{}{}
	}
	if _, ok := n.pairs[pair]; !ok {
		if len(n.pairs) >= n.max*core.MaxLimits {
			return policy, Other
		}
		n.pairs[pair] = struct{}{}
	}
	return policy, limit
}
