// Package both charges one request on two limiters, all or nothing: the
// route a path variant names and the route of the pattern that serves the
// request (see middleware.Routes), so that a variant never limits a request
// more loosely than the handler it reaches is limited. The middleware and
// the config package share it.
package both

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/floodgate-go/floodgate/core"
)

// Limiter is middleware.Limiter.
type Limiter interface {
	AllowN(ctx context.Context, key string, cost int64) (core.Result, error)
	Refund(ctx context.Context, key string, taken core.Result) (core.Result, error)
}

// Scoped joins a scope and a key injectively: the key a limiter shared by
// several scopes is given (the middleware's buckets).
func Scoped(scope, key string) string {
	return strconv.Itoa(len(scope)) + ":" + scope + key
}

// Pair is a Limiter that charges the key it is given on each of Lims, under
// the scope of the same index (the key as is for ""), each by its own
// limits: a request passes when both admit it. A denial by the second gives
// the first's cost back. A Pair decides one request: make one for each.
type Pair struct {
	Lims   [2]Limiter
	Scopes [2]string

	mu    sync.Mutex
	keys  [2]string
	res   [2]core.Result
	shown int // the index of the Result AllowN returned
}

// New returns the Pair charging a under scope sa and b under sb.
func New(a Limiter, sa string, b Limiter, sb string) *Pair {
	return &Pair{Lims: [2]Limiter{a, b}, Scopes: [2]string{sa, sb}}
}

// Prefix puts prefix before both scopes: the middleware keeps a CORS
// preflight's buckets apart so.
func (p *Pair) Prefix(prefix string) {
	p.Scopes[0], p.Scopes[1] = prefix+p.Scopes[0], prefix+p.Scopes[1]
}

// Key returns the key the Result AllowN returned was decided for, in its
// limiter: "" before AllowN.
func (p *Pair) Key() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keys[p.shown]
}

// AllowN charges cost for key on both limiters, in order, and returns the
// first denial (after giving back what the other limiter took), or, when
// both admit, the Result that delays longest, else the one with the least
// Remaining: the binding one.
//
// A limiter's error does not spare the request the other's limit: the
// other still decides it, and its denial is returned as any denial (a
// decision, stricter than an outage). When the other admits, AllowN
// returns the error with that admission, whose cost the Pair still holds
// (Result.Taken): the caller gives it back with Refund unless it serves
// the request all the same (failing open), so that a request served
// while one route's store is down is still counted on the other, as that
// route's own requests are. With both failing, it returns their errors
// joined, holding nothing.
func (p *Pair) AllowN(ctx context.Context, key string, cost int64) (core.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs [2]error
	for i, l := range p.Lims {
		k := key
		if p.Scopes[i] != "" {
			k = Scoped(p.Scopes[i], key)
		}
		res, err := l.AllowN(ctx, k, cost)
		p.keys[i], p.res[i], errs[i] = k, res, err
		if err == nil && !res.Allowed {
			// All or nothing. A failed refund leaves the cost taken: the
			// stricter error.
			_, _ = p.giveBack(context.WithoutCancel(ctx), 1-i)
			p.shown = i
			return res, nil
		}
	}
	switch {
	case errs[0] != nil && errs[1] != nil:
		p.res = [2]core.Result{}
		p.shown = 0
		return core.Result{}, errors.Join(errs[0], errs[1])
	case errs[0] != nil:
		p.res[0], p.shown = core.Result{}, 1
		return p.res[1], errs[0]
	case errs[1] != nil:
		p.res[1], p.shown = core.Result{}, 0
		return p.res[0], errs[1]
	}
	a, b := &p.res[0], &p.res[1]
	if b.Delay > a.Delay || b.Delay == a.Delay && b.Remaining < a.Remaining {
		p.shown = 1
	}
	return p.res[p.shown], nil
}

// Refund gives back what each limiter took for the request (key is the one
// AllowN was given; taken, what it returned, says no more). It returns the
// refund's Result of the limiter whose Result AllowN returned, and the
// errors of both, joined. A part refunded, or never taken, is skipped; with
// neither taken, the shown limiter is asked, so that its error (such as
// core.ErrRefunded) is the Pair's.
func (p *Pair) Refund(ctx context.Context, _ string, taken core.Result) (core.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.res[0].Taken() && !p.res[1].Taken() {
		return p.Lims[p.shown].Refund(ctx, p.keys[p.shown], taken)
	}
	var out core.Result
	var errs [2]error
	for i := range p.res {
		res, err := p.giveBack(ctx, i)
		errs[i] = err
		if i == p.shown {
			out = res
		}
	}
	return out, errors.Join(errs[0], errs[1])
}

// giveBack refunds part i if it holds its cost, and then forgets it.
func (p *Pair) giveBack(ctx context.Context, i int) (core.Result, error) {
	if !p.res[i].Taken() {
		return core.Result{}, nil
	}
	res, err := p.Lims[i].Refund(ctx, p.keys[i], p.res[i])
	if err == nil || errors.Is(err, core.ErrRefunded) {
		p.res[i] = core.Result{}
	}
	return res, err
}
