package middleware

import (
	"context"
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/isnil"
)

// Limiter is what the middleware needs of a limiter. *core.Limiter
// implements it.
type Limiter interface {
	AllowN(ctx context.Context, key string, cost int64) (core.Result, error)
	Refund(ctx context.Context, key string, taken core.Result) (core.Result, error)
}

// Selector picks the limiter that decides a request, and a scope that keeps
// the request's keys apart from those of other scopes sharing that limiter
// ("" for none). route is the route template when a router adapter knows
// it, "" for plain net/http. A nil Limiter with a nil error leaves the
// request unlimited; an error refuses it (see Options.NoKey). A scope must
// not begin with a NUL byte: the middleware keeps CORS preflight buckets
// apart under such scopes (see [Preflight]). A Selector wrapping [Routes]
// builds its scope from the one [Routes.Select] gives, whatever the
// limiter: for a request charged on several routes, that scope stands for
// each route's, and the middleware charges each route under the scope
// built from its own, asking the Selector again for each (at most once
// per route: a Selector doing I/O may cache its answer in the request's
// context). The request it gives Routes.Select must be under the context
// of the one it was given, or one derived from it (r.WithContext of a
// context made from r.Context()): under a context of its own making
// (context.Background()), Routes cannot tell which route it is asked for,
// and such a request is refused (see Options.NoKey), never unlimited.
type Selector interface {
	Select(r *http.Request, route string) (lim Limiter, scope string, err error)
}

// One returns the Selector that picks l for every request. A nil l is
// refused when the Selector is given to [NewSelect].
func One(l Limiter) Selector { return one{l} }

type one struct{ l Limiter }

func (o one) Select(*http.Request, string) (Limiter, string, error) { return o.l, "", nil }

func (o one) validate() error { return checkLimiter("One", o.l) }

// checkLimiter refuses a limiter that would fail on its first request: nil,
// a typed nil such as (*core.Limiter)(nil), or a limiter without a policy
// such as the zero core.Limiter (or without a default policy, such as the
// zero core.Overrides). what names it in the error, which wraps
// [core.ErrInvalidConfig].
func checkLimiter(what string, l Limiter) error {
	if isnil.Value(l) {
		return fmt.Errorf("middleware: %s: nil limiter (%T): %w", what, l, core.ErrInvalidConfig)
	}
	if b, ok := l.(*badRate); ok { // a Rate that could not be built
		return fmt.Errorf("middleware: %s: %w", what, b.err)
	}
	if p, ok := l.(interface{ Policy() *core.Policy }); ok && p.Policy() == nil {
		return fmt.Errorf("middleware: %s: limiter %T has no policy (a zero value, not made by its constructor): %w", what, l, core.ErrInvalidConfig)
	}
	if d, ok := l.(interface{ Default() *core.Limiter }); ok && d.Default() == nil {
		// A zero core.Overrides: no default policy to decide with.
		return fmt.Errorf("middleware: %s: limiter %T has no default (a zero value, not made by its constructor): %w", what, l, core.ErrInvalidConfig)
	}
	return nil
}
