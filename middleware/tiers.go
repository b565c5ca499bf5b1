package middleware

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/same"
)

// ErrUnknownTier is returned (and the request refused) when a request's
// tier has no limiter.
var ErrUnknownTier = errors.New("middleware: unknown tier")

// Tiers returns a [Selector] that picks a limiter by the request's tier:
// resolve names it (from an authenticated tenant, say) and tiers maps each
// name to the limiter of its plan, so tiers can differ in limits and
// windows (free 60/min + 1,000/day, pro 600/min + 100,000/day). A resolve
// error or an unknown tier refuses the request: it is never served
// unlimited. Each tier keeps its own state, so a tenant that changes tier
// starts the new plan's limits afresh, and finds the old plan's as it left
// it when it moves back: within a window, a tenant moving between tiers is
// admitted at most the sum of their limits. Resolve from what
// authenticates the tenant, never from what the client writes (a plan
// header): a client that chooses its tier chooses its limits.
//
// Count per tenant too: [NewSelect] refuses Tiers without Options.Key,
// whose default, the client IP, would give a tenant calling from N
// addresses N times its plan. Give keyfunc.User(tenantOf), or a
// keyfunc.ClientIP key to count per address on purpose.
func Tiers(resolve func(*http.Request) (string, error), tiers map[string]Limiter) (Selector, error) {
	if resolve == nil || len(tiers) == 0 {
		return nil, fmt.Errorf("middleware: Tiers needs a resolver and at least one tier: %w", core.ErrInvalidConfig)
	}
	t := tierSelector{resolve: resolve, tiers: make(map[string]tier, len(tiers))}
	uses := map[Limiter]int{}
	for name, l := range tiers {
		if err := checkLimiter(fmt.Sprintf("tier %q", name), l); err != nil {
			return nil, err
		}
		if same.Comparable(l) {
			uses[l]++
		}
	}
	for name, l := range tiers {
		tr := tier{lim: l}
		if !same.Comparable(l) || uses[l] > 1 {
			// A limiter of several tiers keeps each tier's buckets apart.
			tr.scope = "t" + name
		}
		t.tiers[name] = tr
	}
	return t, nil
}

type tierSelector struct {
	resolve func(*http.Request) (string, error)
	tiers   map[string]tier
}

// tier is a tier's limiter and the scope of its buckets: "" when the
// limiter is the tier's alone.
type tier struct {
	lim   Limiter
	scope string
}

func (t tierSelector) Select(r *http.Request, _ string) (Limiter, string, error) {
	name, err := t.resolve(r)
	if err != nil {
		return nil, "", fmt.Errorf("middleware: resolving the tier: %w", err)
	}
	tr, ok := t.tiers[name]
	if !ok {
		// A name the client may have written (a header resolve reads):
		// never copied whole into an error OnError logs per request.
		return nil, "", fmt.Errorf("%w %.64q", ErrUnknownTier, name)
	}
	return tr.lim, tr.scope, nil
}
