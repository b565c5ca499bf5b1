package redisstore

import (
	"fmt"

	"github.com/floodgate-go/floodgate/core"
)

// shape returns the fingerprint of what p's state means in Redis, which
// names its keys (see the package doc): the policy's name and, for each
// limit in order, its name, its algorithm's type and the parameters its
// state is read in — those core.Limiter.SetPolicy refuses to change (a
// FixedWindow's window and anchoring, a SlidingWindow's or Hybrid's
// window, a SlidingLog's quota, a RollingWindow's window and period).
// Not the quotas, rates and bursts: the scripts keep every algorithm's
// state in units that do not depend on them (see Rebind), so a policy
// changed by SetPolicy and the same policy bound afresh (a process of
// the fleet started after a reload, an Overrides limiter made after its
// provider's change) decide on the same keys, as one limit. A policy of
// another shape counts in other keys.
func shape(p *core.Policy) string {
	b := fmt.Appendf(nil, "shape|%q", p.Name())
	for _, l := range p.Limits() {
		b = fmt.Appendf(b, "|%q:%T", l.Name, l.Algorithm)
		switch a := l.Algorithm.(type) {
		case core.FixedWindow:
			b = fmt.Appendf(b, ":%d:%t", a.Window, a.Anchored)
		case core.SlidingWindow:
			b = fmt.Appendf(b, ":%d", a.Window)
		case core.SlidingLog:
			b = fmt.Appendf(b, ":%d", a.Quota)
		case core.RollingWindow:
			b = fmt.Appendf(b, ":%d:%d", a.Window, a.Period)
		case core.Hybrid:
			b = fmt.Appendf(b, ":%d", a.Window)
		}
	}
	return string(b)
}
