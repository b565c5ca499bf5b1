package login

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/isnil"
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
	devices *devices // nil without Options.Devices
	netKey  keyfunc.Func
	accKey  keyfunc.Func
	norm    func(string) string
	ok      func(int) bool
	clock   core.Clock
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
		ms, err := core.NewMemoryStore(core.MemoryOptions{})
		if err != nil {
			return nil, err
		}
		store = ms
	}
	g := &Guard{opts: opts, norm: opts.Normalize, ok: opts.Succeeded, clock: opts.Clock, field: opts.Field, maxBody: opts.MaxBody}
	var err error
	if g.account, err = limiter(KindAccount, acc, store, opts.Clock); err != nil {
		return nil, err
	}
	if g.network, err = limiter(KindNetwork, nw, store, opts.Clock); err != nil {
		return nil, err
	}
	if opts.Devices != nil {
		if g.devices, err = newDevices(opts.Devices, store, opts.Clock); err != nil {
			return nil, err
		}
	}
	if g.netKey, err = keyfunc.ClientIP(opts.IP); err != nil {
		return nil, err
	}
	g.accKey = keyfunc.UserFromContext(userKey{})
	if g.norm == nil {
		g.norm = NormalizeUsername
	}
	if g.ok == nil {
		g.ok = defaultSucceeded
	}
	if g.clock == nil {
		g.clock = systemClock{}
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

// Validate returns an error wrapping core.ErrInvalidConfig if g cannot
// serve: a nil *Guard (New's error ignored) or one not made by [New] (the
// zero Guard). [Guard.Handler] and the router adapters' login helpers call
// it when they are mounted, so that such a mistake stops the program at
// start-up, not at the first login.
func (g *Guard) Validate() error {
	if g == nil || g.account == nil || g.network == nil {
		return fmt.Errorf("login: nil or zero Guard (make it with New): %w", core.ErrInvalidConfig)
	}
	return nil
}

// mustValidate panics with Validate's error, when a handler chain is built.
func (g *Guard) mustValidate() {
	if err := g.Validate(); err != nil {
		panic(err)
	}
}

// mustNext panics, when a handler chain is built, on a nil or typed-nil
// next handler (every login would panic on it), with an error that says
// what to give: http.ListenAndServe(addr, nil) makes nil look like the
// default ServeMux.
func mustNext(next http.Handler) {
	if !isnil.Value(next) {
		return
	}
	panic(fmt.Errorf("login: Guard.Handler(%s): no handler to pass the attempts to: give the one checking the credentials (http.DefaultServeMux for handlers registered with http.Handle): %w",
		isnil.Describe(next), core.ErrInvalidConfig))
}

// name returns the form username is counted by: Options.Normalize applied
// to it, on every path that derives a key from a username.
func (g *Guard) name(username string) (string, error) {
	if len(username) > MaxUsername {
		return "", ErrUsernameTooLong
	}
	var name string
	if g.opts.Normalize == nil {
		n, ok := normalize(username, MaxUsername)
		if !ok {
			return "", ErrUsernameTooLong
		}
		name = n
	} else {
		name = g.norm(username)
	}
	switch {
	case name == "":
		return "", ErrNoUsername
	case len(name) > 4*MaxUsername:
		return "", ErrUsernameTooLong
	}
	return name, nil
}

// accountKey returns the account counter's key of the normalized name.
func (g *Guard) accountKey(ctx context.Context, name string) (string, error) {
	r := (&http.Request{}).WithContext(context.WithValue(ctx, userKey{}, name))
	return g.accKey(r)
}

// charge is one cost an attempt took, on one key.
type charge struct {
	kind string
	l    *core.Limiter
	key  string
	res  core.Result
}

// Attempt is a login attempt admitted by [Guard.Begin]: its failure is
// already counted. Report its outcome with [Attempt.Succeeded] or
// [Attempt.Failed] (or [Attempt.Respond]); an attempt never reported stays
// counted as failed. Only the first report counts, however many are made
// and from however many goroutines.
type Attempt struct {
	g       *Guard
	ctx     context.Context
	name    string    // the normalized username
	user    string    // the username as submitted, which device cookies are bound to
	page    string    // the login page, which device cookies are bound to (loginPage)
	charges [2]charge // the account's and the network's, or the device's alone
	n       int
	once    sync.Once
	won     atomic.Bool   // Succeeded was the first report
	path    string        // the login request's URL path, "" when unknown
	sent    string        // the path the client sent, when a middleware rewrote r.URL.Path (http.StripPrefix)
	r       *http.Request // the login request, for Options.OnError
}

// Begin counts a failed attempt of username before the credentials are
// checked: on the counter of the device r's device cookie names, when
// Options.Devices is set and r carries a valid cookie for username;
// otherwise on both the account's and r's client network's counters. It
// returns an error wrapping [ErrThrottled] (a [*ThrottledError]) when a
// counter refuses the attempt, which then counts nowhere;
// [ErrNoUsername] for an empty username (after normalization);
// [ErrUsernameTooLong]; an error wrapping core.ErrInvalidConfig for a nil
// r or a nil or zero g (see [Guard.Validate]); or the key or store error.
// Only with a nil error may the credentials be checked, and the outcome
// must then be reported.
func (g *Guard) Begin(ctx context.Context, username string, r *http.Request) (*Attempt, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("login: Begin: nil request (the client network is counted from it): %w", core.ErrInvalidConfig)
	}
	name, err := g.name(username)
	if err != nil {
		return nil, err
	}
	a := &Attempt{g: g, ctx: context.WithoutCancel(ctx), name: name, user: username, r: r}
	if r != nil && r.URL != nil {
		a.path = r.URL.Path
		if u, err := url.ParseRequestURI(r.RequestURI); err == nil && u.Path != a.path {
			a.sent = u.Path
		}
	}
	if g.devices != nil {
		// A device cookie is bound to the username exactly as submitted,
		// not to its normalized name: usernames the application keeps
		// apart may normalize alike, and a cookie one of them earned must
		// not open the others' device path. It is bound to the login page
		// too: two pages may serve users apart under one username.
		a.page = loginPage(r)
		if key := g.devices.key(r, a.page, username, g.clock.Now()); key != "" {
			if err := a.take(ctx, KindDevice, g.devices.limit, key); err != nil {
				return nil, err
			}
			return a, nil
		}
	}
	netKey, err := g.netKey(r)
	if err != nil {
		return nil, err
	}
	accKey, err := g.accountKey(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := a.take(ctx, KindAccount, g.account, accKey); err != nil {
		var te *ThrottledError
		if errors.As(err, &te) {
			// The network is not charged; the wait is until both admit.
			if p, err := g.network.Peek(ctx, netKey, 1); err == nil && !p.Allowed {
				te.RetryAfter = max(te.RetryAfter, p.RetryAfter)
			}
		}
		return nil, err
	}
	if err := a.take(ctx, KindNetwork, g.network, netKey); err != nil {
		a.giveBack()
		return nil, err
	}
	return a, nil
}

// take charges one failure on key, or returns the store error or a
// *ThrottledError. Every charge costs exactly 1, so that no algorithm's
// handling of larger costs matters here.
func (a *Attempt) take(ctx context.Context, kind string, l *core.Limiter, key string) error {
	res, err := l.Allow(ctx, key)
	if err != nil {
		return err
	}
	if !res.Allowed {
		return &ThrottledError{RetryAfter: res.RetryAfter}
	}
	a.charges[a.n] = charge{kind: kind, l: l, key: key, res: res}
	a.n++
	return nil
}

// giveBack refunds every charge of an attempt that never reached the
// credential check.
func (a *Attempt) giveBack() {
	a.once.Do(func() {
		for _, c := range a.charges[:a.n] {
			a.g.refund(a.r, c.l, c.key, c.res)
		}
	})
}

// Succeeded reports that the credentials were right: the attempt is
// refunded (and, with Options.ResetAccountOnSuccess, the account's or the
// device's counter reset; never the network's). Only the first report of
// an attempt counts.
func (a *Attempt) Succeeded() {
	if a == nil || a.g == nil {
		return
	}
	a.once.Do(func() {
		a.won.Store(true)
		g := a.g
		for _, c := range a.charges[:a.n] {
			// The account counter is shared by every spelling that
			// normalizes to the name: only the name itself may clear it,
			// not another spelling the application may take for another
			// account (see Options.ResetAccountOnSuccess).
			if g.opts.ResetAccountOnSuccess && (c.kind == KindDevice || (c.kind == KindAccount && a.user == a.name)) {
				if err := c.l.Reset(a.ctx, c.key); err != nil {
					g.report(a.r, err)
				}
				continue
			}
			g.refund(a.r, c.l, c.key, c.res)
		}
	})
}

// Failed reports that the credentials were wrong: the attempt stays
// counted, and Options.OnLockout hears of each key it left locked. Only the
// first report of an attempt counts.
func (a *Attempt) Failed() {
	if a == nil || a.g == nil {
		return
	}
	a.once.Do(a.fail)
}

// fail tells Options.OnLockout of each key the failed attempt left locked.
func (a *Attempt) fail() {
	g := a.g
	if g.opts.OnLockout == nil {
		return
	}
	for _, c := range a.charges[:a.n] {
		p, err := c.l.Peek(a.ctx, c.key, 1)
		if err != nil {
			g.report(a.r, err)
			continue
		}
		if !p.Allowed {
			g.opts.OnLockout(c.kind, p.RetryAfter)
		}
	}
}

// Respond reports the outcome from the response status, before the
// response is written: a success (Options.Succeeded) is reported with
// [Attempt.Succeeded] and, with Options.Devices, a fresh device cookie is
// added to h; any other status with [Attempt.Failed]. Router adapters call
// it when the status is known and the headers are not yet sent.
//
// With the default Options.Succeeded, a redirect (3xx) counts as a success
// only when Options.SuccessRedirect says so of h's Location, and never when
// it leads back to the login request's own path (as the handler sees it,
// or as the client sent it when a middleware such as http.StripPrefix
// rewrote it: "/login?error=1", the post/redirect/get way of showing a
// wrong password) or has no Location; without SuccessRedirect every
// redirect is a failure, reported to Options.OnError with
// [ErrRedirectNotJudged] (see Options.SuccessRedirect).
// A handler that answers a wrong password with 200 (the form shown again)
// cannot be told from a success by its status: give it an
// Options.Succeeded that can, or report outcomes with [Attempt.Failed].
func (a *Attempt) Respond(h http.Header, status int) {
	if a == nil || a.g == nil {
		return
	}
	if !a.g.ok(status) || !a.redirectSucceeded(h, status) {
		a.Failed()
		return
	}
	a.Succeeded()
	if c := a.DeviceCookie(); c != nil && h != nil {
		h.Add("Set-Cookie", c.String())
	}
}

// DeviceCookie returns a new device cookie for the attempt's username, to
// be set on the response: nil unless Options.Devices is set and the
// attempt was reported as succeeded (and first, by [Attempt.Succeeded]).
// [Guard.Handler] and the router adapters set it themselves.
func (a *Attempt) DeviceCookie() *http.Cookie {
	if a == nil || a.g == nil || a.g.devices == nil || !a.won.Load() {
		return nil
	}
	return a.g.devices.issue(a.page, a.user, a.g.clock.Now())
}

// Unlock forgets the failures counted on username's account counter (not
// on the networks' or the devices'), for an operator, or once a password
// reset has been completed (not when one is merely requested: anyone can
// request a reset, and an attacker would then clear the counter at will).
// username is normalized like every attempt's.
func (g *Guard) Unlock(ctx context.Context, username string) error {
	if err := g.Validate(); err != nil {
		return err
	}
	name, err := g.name(username)
	if err != nil {
		return err
	}
	key, err := g.accountKey(ctx, name)
	if err != nil {
		return err
	}
	return g.account.Reset(ctx, key)
}

// refund gives res back, reporting an error with r, the attempt's request.
func (g *Guard) refund(r *http.Request, l *core.Limiter, key string, res core.Result) {
	if _, err := l.Refund(context.Background(), key, res); err != nil {
		g.report(r, err)
	}
}

func (g *Guard) report(r *http.Request, err error) {
	if g.opts.OnError != nil {
		g.opts.OnError(r, err)
	}
}

// systemClock is the Guard's clock when Options.Clock is nil.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
