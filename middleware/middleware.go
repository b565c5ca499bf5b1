package middleware

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/keyfunc"
)

// ErrInvalidCost is reported (through Options.OnError) when Options.Cost
// returns a cost below 1.
var ErrInvalidCost = errors.New("middleware: cost below 1")

// Middleware limits requests; see the package documentation. It is safe
// for concurrent use.
type Middleware struct {
	sel       Selector
	opts      Options
	key       keyfunc.Func
	hdr       *headers.Writer
	failRetry string
}

// New returns a middleware that decides every request with l.
func New(l Limiter, opts Options) (*Middleware, error) {
	if err := checkLimiter("New", l); err != nil {
		return nil, err
	}
	return NewSelect(One(l), opts)
}

// NewSelect returns a middleware that decides each request with the
// limiter sel picks for it.
func NewSelect(sel Selector, opts Options) (*Middleware, error) {
	if err := checkConfig(sel, &opts); err != nil {
		return nil, err
	}
	m := &Middleware{sel: sel, opts: opts, key: opts.Key, hdr: opts.Headers}
	if m.key == nil {
		k, err := keyfunc.ClientIP(keyfunc.IPOptions{})
		if err != nil {
			return nil, err
		}
		m.key = k
	}
	if m.hdr == nil {
		h, err := headers.New(headers.Options{})
		if err != nil {
			return nil, err
		}
		m.hdr = h
	}
	if opts.FailRetryAfter < 0 || opts.MaxDelay < 0 {
		return nil, fmt.Errorf("middleware: negative FailRetryAfter or MaxDelay: %w", core.ErrInvalidConfig)
	}
	fra := opts.FailRetryAfter
	if fra == 0 {
		fra = time.Second
	}
	m.failRetry = strconv.FormatInt(int64((fra+time.Second-1)/time.Second), 10)
	return m, nil
}

// Handler wraps next: the middleware as a func(http.Handler) http.Handler.
// It panics, when the handler chain is built, if m is nil or was not made
// by [New] or [NewSelect] (see [Middleware.Validate]).
func (m *Middleware) Handler(next http.Handler) http.Handler {
	m.mustValidate()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a Admission
		if !m.begin(w, r, "", &a) {
			return
		}
		if !a.Counting() {
			next.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		a.End(r.Context(), sw.Status())
	})
}

// Admission is an admitted request whose cost may still be refunded: see
// [Middleware.Begin].
type Admission struct {
	m    *Middleware
	lim  Limiter
	key  string
	res  core.Result
	done uint32 // set (atomically) by the first End
}

// Counting reports whether [Admission.End] needs the response status: the
// middleware counts only some statuses (Options.CountIf).
func (a *Admission) Counting() bool { return a.lim != nil && a.m.opts.CountIf != nil }

// Result returns the decision that admitted the request; the zero Result
// for skipped or unlimited requests.
func (a *Admission) Result() core.Result { return a.res }

// End reports the response status of the admitted request, so that a
// request Options.CountIf says should not count is refunded. Calling it is
// needed only when [Admission.Counting] is true; it is safe either way.
// Only the first call acts, even when calls race; a copy of the Admission
// ended again is refused by the limiter (a *core.Limiter refunds a
// decision once), so nothing is ever given back twice.
func (a *Admission) End(ctx context.Context, status int) {
	if !a.Counting() || !atomic.CompareAndSwapUint32(&a.done, 0, 1) || a.m.opts.CountIf(status) {
		return
	}
	if _, err := a.lim.Refund(context.WithoutCancel(ctx), a.key, a.res); err != nil && !errors.Is(err, core.ErrRefunded) {
		a.m.report(nil, err)
	}
}

// Begin decides r. When it returns false it has written the whole answer
// (429, 403, 500 or 503), or the request was cancelled while it waited out a
// shaping delay, and the handler must not run. When it returns true the
// rate-limit headers are set, any shaping delay has passed, and the handler
// may run; then [Admission.End] must be told the response status if
// [Admission.Counting]. route is the route template a router adapter knows,
// or "". A nil or zero Middleware (see [Middleware.Validate]) answers 500
// and returns false.
func (m *Middleware) Begin(w http.ResponseWriter, r *http.Request, route string) (Admission, bool) {
	var a Admission
	ok := m.begin(w, r, route, &a)
	return a, ok
}

// begin is Begin filling a, so that the decision is not copied around. a
// is left zero (End does nothing) unless the request was admitted with a
// refundable cost.
func (m *Middleware) begin(w http.ResponseWriter, r *http.Request, route string, a *Admission) bool {
	if m == nil || m.sel == nil {
		refuseInvalid(w)
		return false
	}
	o := &m.opts
	if o.Skip != nil && o.Skip(r) {
		return true
	}
	lim, scope, err := m.selectLimiter(r, route)
	if err != nil {
		m.refuse(w, r, err)
		return false
	}
	if lim == nil {
		return true
	}
	key, err := m.key(r)
	if err != nil {
		m.refuse(w, r, err)
		return false
	}
	if scope != "" {
		key = scoped(scope, key)
	}
	cost := int64(1)
	if o.Cost != nil {
		if cost = o.Cost(r); cost < 1 {
			m.report(r, fmt.Errorf("%w: %d", ErrInvalidCost, cost))
			writeProblem(w, http.StatusInternalServerError, "Internal Server Error", "the rate limit cost of this request is invalid", nil)
			return false
		}
	}
	ctx := r.Context()

	a.res, err = lim.AllowN(ctx, key, cost)
	res := &a.res
	if err != nil {
		m.report(r, err)
		if o.FailOpen || o.DryRun {
			return true
		}
		w.Header()["Retry-After"] = []string{m.failRetry}
		writeProblem(w, http.StatusServiceUnavailable, "Service Unavailable", "the rate limiter is unavailable", nil)
		return false
	}
	a.m, a.lim, a.key = m, lim, key
	if !res.Allowed || (o.MaxDelay > 0 && res.Delay > o.MaxDelay) {
		if res.Allowed { // the delay is beyond MaxDelay: give it back, deny
			m.giveBack(ctx, a)
			res.Allowed, res.RetryAfter = false, res.Delay-o.MaxDelay
		}
		denied := *res
		*a = Admission{}
		if o.OnDenied != nil {
			o.OnDenied(r, denied)
		}
		if o.DryRun {
			return true
		}
		m.deny(w, r, &denied)
		return false
	}
	if o.DryRun {
		return true
	}
	m.hdr.Write(w.Header(), res)
	if res.Delay > 0 {
		t := time.NewTimer(res.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			m.giveBack(ctx, a)
			*a = Admission{}
			return false
		}
	}
	return true
}

// giveBack refunds an admission whose request will not be served.
func (m *Middleware) giveBack(ctx context.Context, a *Admission) {
	if _, err := a.lim.Refund(context.WithoutCancel(ctx), a.key, a.res); err != nil {
		m.report(nil, err)
	}
}

func (m *Middleware) refuse(w http.ResponseWriter, r *http.Request, err error) {
	m.report(r, err)
	if m.opts.NoKey != nil {
		m.opts.NoKey(w, r, err)
		return
	}
	writeProblem(w, http.StatusForbidden, "Forbidden", "the request cannot be attributed to a client for rate limiting", nil)
}

func (m *Middleware) report(r *http.Request, err error) {
	if m.opts.OnError != nil {
		m.opts.OnError(r, err)
	}
}

// scoped joins a scope and a key injectively.
func scoped(scope, key string) string {
	return strconv.Itoa(len(scope)) + ":" + scope + key
}
