package login

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
)

// Key kinds, as passed to Options.OnLockout.
const (
	KindAccount = "account"
	KindNetwork = "network"
)

// ErrThrottled is wrapped by the error [Guard.Begin] returns for a throttled
// attempt; errors.As finds the [*ThrottledError] that says how long to wait.
var ErrThrottled = errors.New("login: too many failed attempts")

// ErrNoUsername is returned for an attempt without a username.
var ErrNoUsername = errors.New("login: no username")

// ThrottledError is the error of a throttled attempt. It does not say which
// key throttled it, so that no answer built from it can.
type ThrottledError struct {
	// RetryAfter is the time until both keys would admit the attempt.
	RetryAfter time.Duration
}

// Error describes the throttling.
func (e *ThrottledError) Error() string {
	return "login: too many failed attempts, retry after " + e.RetryAfter.String()
}

// Unwrap returns [ErrThrottled].
func (e *ThrottledError) Unwrap() error { return ErrThrottled }

// Guard throttles failed login attempts; see the package documentation. It
// is safe for concurrent use.
type Guard struct {
	opts    Options
	account *core.Limiter
	network *core.Limiter
	accKey  keyfunc.Func
	netKey  keyfunc.Func
	norm    func(string) string
	ok      func(int) bool
	field   string
	maxBody int64
}

type userKey struct{}

// New returns a guard configured by opts.
func New(opts Options) (*Guard, error) {
	acc, nw := opts.Account, opts.Network
	if acc == nil {
		acc = DefaultAccount
	}
	if nw == nil {
		nw = DefaultNetwork
	}
	if opts.MaxBody < 0 {
		return nil, fmt.Errorf("login: MaxBody %d is negative: %w", opts.MaxBody, core.ErrInvalidConfig)
	}
	store := opts.Store
	if store == nil {
		ms, err := core.NewMemoryStore(core.MemoryOptions{WhenFull: core.EvictNearest})
		if err != nil {
			return nil, err
		}
		store = ms
	}
	g := &Guard{opts: opts, norm: opts.Normalize, ok: opts.Succeeded, field: opts.Field, maxBody: opts.MaxBody}
	var err error
	if g.account, err = limiter(KindAccount, acc, store, opts.Clock); err != nil {
		return nil, err
	}
	if g.network, err = limiter(KindNetwork, nw, store, opts.Clock); err != nil {
		return nil, err
	}
	if g.netKey, err = keyfunc.ClientIP(opts.IP); err != nil {
		return nil, err
	}
	g.accKey = keyfunc.UserFromContext(userKey{})
	if g.norm == nil {
		g.norm = defaultNormalize
	}
	if g.ok == nil {
		g.ok = defaultSucceeded
	}
	if g.field == "" {
		g.field = "username"
	}
	if g.maxBody == 0 {
		g.maxBody = DefaultMaxBody
	}
	return g, nil
}

func limiter(kind string, a core.Algorithm, s core.Store, clk core.Clock) (*core.Limiter, error) {
	p, err := core.Single("login-"+kind, a)
	if err != nil {
		return nil, fmt.Errorf("login: %s limit: %w", kind, err)
	}
	return core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
}

// Attempt is a login attempt admitted by [Guard.Begin]: its failure is
// already counted on both keys. Report its outcome with [Attempt.Succeeded]
// or [Attempt.Failed]; an attempt never reported stays counted as failed.
type Attempt struct {
	g        *Guard
	ctx      context.Context
	acc, net string
	accRes   core.Result
	netRes   core.Result
}

// Begin counts a failed attempt of username from r's client network on both
// keys, before the credentials are checked. It returns an error wrapping
// [ErrThrottled] (a [*ThrottledError]) when either key refuses the attempt,
// which then counts nowhere; [ErrNoUsername] for an empty username (after
// normalization); or the key or store error. Only with a nil error may the
// credentials be checked, and the outcome must then be reported.
func (g *Guard) Begin(ctx context.Context, username string, r *http.Request) (*Attempt, error) {
	name := g.norm(username)
	if name == "" {
		return nil, ErrNoUsername
	}
	netKey, err := g.netKey(r)
	if err != nil {
		return nil, err
	}
	accKey, err := g.accKey(r.WithContext(context.WithValue(ctx, userKey{}, name)))
	if err != nil {
		return nil, err
	}
	a := &Attempt{g: g, ctx: context.WithoutCancel(ctx), acc: accKey, net: netKey}
	if a.accRes, err = g.account.Allow(ctx, accKey); err != nil {
		return nil, err
	}
	if !a.accRes.Allowed {
		// The network is not charged; the wait is until both admit.
		retry := a.accRes.RetryAfter
		if p, err := g.network.Peek(ctx, netKey, 1); err == nil && !p.Allowed {
			retry = max(retry, p.RetryAfter)
		}
		return nil, &ThrottledError{RetryAfter: retry}
	}
	if a.netRes, err = g.network.Allow(ctx, netKey); err != nil || !a.netRes.Allowed {
		g.refund(g.account, accKey, a.accRes)
		if err != nil {
			return nil, err
		}
		return nil, &ThrottledError{RetryAfter: a.netRes.RetryAfter}
	}
	return a, nil
}

// Succeeded reports that the credentials were right: the attempt is
// refunded on both keys (and the account's counter reset with
// Options.ResetAccountOnSuccess). Only the first report of an attempt
// counts.
func (a *Attempt) Succeeded() {
	if a == nil || a.g == nil {
		return
	}
	g := a.g
	a.g = nil
	if g.opts.ResetAccountOnSuccess {
		if err := g.account.Reset(a.ctx, a.acc); err != nil {
			g.report(nil, err)
		}
	} else {
		g.refund(g.account, a.acc, a.accRes)
	}
	g.refund(g.network, a.net, a.netRes)
}

// Failed reports that the credentials were wrong: the attempt stays
// counted, and Options.OnLockout hears of each key it left locked. Only the
// first report of an attempt counts.
func (a *Attempt) Failed() {
	if a == nil || a.g == nil {
		return
	}
	g := a.g
	a.g = nil
	if g.opts.OnLockout == nil {
		return
	}
	for _, k := range [...]struct {
		kind, key string
		l         *core.Limiter
	}{{KindAccount, a.acc, g.account}, {KindNetwork, a.net, g.network}} {
		p, err := k.l.Peek(a.ctx, k.key, 1)
		if err != nil {
			g.report(nil, err)
			continue
		}
		if !p.Allowed {
			g.opts.OnLockout(k.kind, p.RetryAfter)
		}
	}
}

func (g *Guard) refund(l *core.Limiter, key string, res core.Result) {
	if _, err := l.Refund(context.Background(), key, res); err != nil {
		g.report(nil, err)
	}
}

func (g *Guard) report(r *http.Request, err error) {
	if g.opts.OnError != nil {
		g.opts.OnError(r, err)
	}
}

// retryAfterSeconds formats d as whole seconds, rounded up, at least 1.
func retryAfterSeconds(d time.Duration) string {
	if d == core.Never {
		return strconv.FormatInt(int64(core.Never/time.Second), 10)
	}
	return strconv.FormatInt(max(int64((d+time.Second-1)/time.Second), 1), 10)
}
