package middleware

import (
	"context"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
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
// request unlimited; an error refuses it (see Options.NoKey).
type Selector interface {
	Select(r *http.Request, route string) (lim Limiter, scope string, err error)
}

// One returns the Selector that picks l for every request.
func One(l Limiter) Selector { return one{l} }

type one struct{ l Limiter }

func (o one) Select(*http.Request, string) (Limiter, string, error) { return o.l, "", nil }
