package middleware

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/internal/isnil"
)

// partsScope is the scope Routes.Select gives with a Limiter of several
// routes (a both.Pair): the parts' scopes as they are. A Selector giving
// it back untouched (Routes itself, NewKeyed's KeySelector of the config
// package, whose Pair holds each route's key) has the Pair decide as it
// is; any other scope (a Selector wrapping Routes that built its own from
// it) has each route selected again (see selectScoped). Random, so that
// no scope a request shapes (a path decoded into a key) can be it.
var partsScope = "\x00routes\x00" + rand.Text()

// partKey is the context key of the part of a Pair that the Routes that
// made it is asked for (see partAsked).
type partKey struct{}

// partChoice is one part of a Pair, asked of the Routes that made it.
type partChoice struct {
	p *both.Pair
	i int
}

// partAsked returns the part of a Pair of rt that r asks rt for, if it
// asks one (see selectScoped).
func partAsked(r *http.Request, rt *Routes) (both.Part, bool) {
	c, ok := r.Context().Value(partKey{}).(partChoice)
	if !ok || c.p.Origin() != rt {
		return both.Part{}, false
	}
	return c.p.Parts()[c.i], true
}

// errPartPair refuses a Selector that answers a Pair when asked for one
// of its routes: the Routes it wraps did not see the request it was given
// (a context of the Selector's own).
var errPartPair = fmt.Errorf("middleware: the Selector gave several routes when asked for one: give Routes.Select the request under its context, or one derived from it (not a context of the Selector's own): %w", core.ErrInvalidConfig)

// selectScoped is sel.Select. A Limiter of several routes (see
// Routes.Select) that the Selector gives with a scope of its own making
// (a Selector wrapping Routes) is replaced by one charging each route's
// limiter under the scope the Selector gives that route's own requests:
// the Selector is asked again for each, the Routes that made the Pair
// answering that route alone. A Selector may build its scope from the
// route's in any way (before, after, around its own, joined with a length
// prefix, hashed): no route's requests are counted elsewhere for their
// spelling.
func (m *Middleware) selectScoped(r *http.Request, route string) (Limiter, string, error) {
	l, scope, err := m.sel.Select(r, route)
	p, ok := l.(*both.Pair)
	switch {
	case !ok || err != nil:
		return l, scope, err
	case scope == partsScope:
		return p, "", nil // the parts' scopes as they are
	case p.Origin() == nil:
		// A Pair of the config package's given with a scope of another
		// Selector's: its parts are no routes to ask for.
		return nil, "", fmt.Errorf("middleware: the Selector gave a limiter of several routes with a scope it cannot have: %w", core.ErrInvalidConfig)
	}
	var parts [both.MaxParts]both.Part
	ps := p.Parts()
	for i := range ps {
		ri := r.WithContext(context.WithValue(r.Context(), partKey{}, partChoice{p, i}))
		lim, s, err := m.sel.Select(ri, route)
		switch {
		case err != nil:
			return nil, "", err
		case lim == nil:
			continue // the Selector leaves this route's requests unlimited
		case isnil.Value(lim):
			return nil, "", fmt.Errorf("middleware: the Selector gave a nil %T: %w", lim, core.ErrInvalidConfig)
		}
		if _, ok := lim.(*both.Pair); ok {
			return nil, "", errPartPair
		}
		parts[i] = both.Part{Lim: lim, Scope: s}
	}
	l, scope = both.Of(parts[:len(ps)]...)
	return l, scope, nil
}
