package middleware

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/floodgate-go/floodgate/internal/seconds"
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
	// ipKey says that key is the default, the client IP from RemoteAddr:
	// a *core.Limiter is then given the key in bytes (see ipkey.go).
	ipKey bool
	// pk says that hdr writes a partition key: the decided key is kept
	// for it (see headers.Writer.WriteKey).
	pk bool
	// names are hdr's field names (see stacked).
	names []string
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
	if err := m.setDefaults(); err != nil {
		return nil, err
	}
	return m, nil
}

// setDefaults fills in what the options leave out: the client IP key, every
// header, and the Retry-After of 503 answers (1 second by default).
func (m *Middleware) setDefaults() error {
	if m.key == nil {
		k, err := keyfunc.ClientIP(keyfunc.IPOptions{})
		if err != nil {
			return err
		}
		m.key, m.ipKey = k, true
	}
	if m.hdr == nil {
		h, err := headers.New(headers.Options{})
		if err != nil {
			return err
		}
		m.hdr = h
	}
	m.pk = m.hdr.PartitionKeys()
	m.names = m.hdr.Names()
	m.failRetry = strconv.FormatInt(seconds.Positive(m.opts.FailRetryAfter), 10)
	return nil
}

// Handler wraps next: the middleware as a func(http.Handler) http.Handler.
// It panics, when the handler chain is built, if m is nil or was not made by
// [New] or [NewSelect] (see [Middleware.Validate]), or if next is nil or a
// typed nil (for the default ServeMux, give http.DefaultServeMux). When next
// is the application's *http.ServeMux, a request's r.Pattern is set before
// the decision to the pattern next will serve it with (as next sets it when
// it dispatches), whatever the Selector: [Routes] limits the request by the
// handler it reaches, a key such as keyfunc.Route and the hooks of Options
// read the pattern, and a CORS preflight that reaches a handler is counted
// as that handler's request (see [Preflight]). (With a single limiter, the
// default key and no hook, nothing reads it but the preflight rule: only
// OPTIONS requests are looked up.)
func (m *Middleware) Handler(next http.Handler) http.Handler {
	m.mustValidate()
	checkNext("Middleware", next)
	h := &limited{m: m, next: next}
	h.mux, _ = next.(*http.ServeMux)
	h.preflightsOnly = m.readsNoPattern()
	return h
}

// readsNoPattern reports whether nothing m calls reads r.Pattern but the
// preflight rule: a single limiter, the default key and no hook that is
// given the request. Handler then spares other requests the lookup in the
// mux (an allocation or more each).
func (m *Middleware) readsNoPattern() bool {
	_, single := m.sel.(one)
	o := &m.opts
	return single && m.ipKey && o.Skip == nil && o.Cost == nil && o.OnDenied == nil &&
		o.Denied == nil && o.NoKey == nil && o.OnError == nil
}

// limited is next behind a middleware: what Handler returns (a type of its
// own, called directly, rather than a closure behind http.HandlerFunc).
type limited struct {
	m    *Middleware
	next http.Handler
	mux  *http.ServeMux // next, when it is a ServeMux
	// preflightsOnly says that only an OPTIONS request needs its pattern
	// (see readsNoPattern).
	preflightsOnly bool
}

func (h *limited) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	set, outer := false, r.Pattern
	if h.mux != nil && r.URL != nil && (!h.preflightsOnly || routepath.IsOptions(r.Method)) {
		// The pattern the application's mux will serve r with, as it
		// sets it itself when it dispatches r: the Selector's best
		// guide to the handler r reaches (see Routes), the key's
		// (keyfunc.Route) and the preflight rule's (see Preflight).
		// It replaces the pattern of an outer mux that routed r here
		// ("/api/" to http.StripPrefix and this mux), as next replaces
		// it.
		_, r.Pattern = h.mux.Handler(r)
		set = true
	}
	var a Admission
	ok := h.m.begin(w, r, "", &a)
	if set {
		// For the decision only: the mux sets it as it dispatches (a mux
		// in Go 1.21's mode, httpmuxgo121=1, never does).
		r.Pattern = outer
	}
	if !ok {
		return
	}
	if a.share != nil {
		// The request the handler is given tells the middlewares inside
		// this one of the admission (see stacked); the pattern a mux
		// behind sets on it is set on r as well, as when r is given.
		orig, in := r, a.Request(r)
		defer func() { orig.Pattern = in.Pattern }()
		r = in
	}
	if !a.Counting() {
		h.next.ServeHTTP(w, r)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	h.next.ServeHTTP(sw, r)
	a.End(r.Context(), sw.status)
}

// Begin decides r. When it returns false it has written the whole answer
// (429, 403, 500 or 503), or the request was cancelled while it waited out a
// shaping delay, and the handler must not run. When it returns true the
// rate-limit headers are set, any shaping delay has passed, and the handler
// may run, given the request [Admission.Request] returns (which tells the
// middlewares inside this one of the admission); then [Admission.End]
// must be told the response status if [Admission.Counting]. route is the
// route template a router adapter knows, or "". A nil or zero Middleware
// (see [Middleware.Validate]) answers 500 and returns false.
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
	if m.opts.Skip != nil && m.opts.Skip(r) {
		return true
	}
	lim, scope, err := m.selectLimiter(r, route)
	if err != nil {
		return m.refuse(w, r, err) == errUndecided
	}
	if lim == nil {
		return true
	}
	if l, ok := lim.(*core.Limiter); ok && m.ipKey {
		err = m.decideIP(w, r, l, scope, a)
	} else {
		err = m.decideKey(w, r, lim, scope, a)
	}
	var ok bool
	switch err {
	case nil:
		ok = m.decided(w, r, a)
	case errAnswered:
		return false
	case errUndecided:
		return true
	default:
		ok = m.failed(w, r, err, a)
	}
	if ok {
		a.arm()
	}
	return ok
}

// errAnswered is returned by decideKey and decideIP when r was refused
// before the decision: its answer is written.
var errAnswered = errors.New("middleware: answered")

// errUndecided is returned by refuse and cost, and by decideKey and
// decideIP after them, when r is served undecided: under DryRun, its key,
// limiter or cost could not be determined.
var errUndecided = errors.New("middleware: served undecided")

// decideKey decides r with lim, by the key of Options.Key joined to scope,
// into a. A limiter error is returned as it is.
func (m *Middleware) decideKey(w http.ResponseWriter, r *http.Request, lim Limiter, scope string, a *Admission) error {
	key, err := scopedKey(m.key, r, scope)
	if err != nil {
		return m.refuse(w, r, err)
	}
	cost, err := m.cost(w, r)
	if err != nil {
		return err
	}
	err = decide(m.decisionContext(r), lim, key, cost, &a.res)
	if err == nil || holds(lim, &a.res) {
		// With an error, a limiter of two routes (see Routes.Select) may
		// hold the admission of the route that did not fail: failed
		// keeps it for a request served all the same, else gives it back.
		a.m, a.r, a.lim, a.key, a.cost = m, r, lim, key, cost
	}
	return err
}

// requestKey returns the key of r by key, refusing an empty key returned
// with a nil error (which keyfunc.Func forbids) as no key: every request
// without one would otherwise share one bucket.
func requestKey(key keyfunc.Func, r *http.Request) (string, error) {
	k, err := key(r)
	if err == nil && k == "" {
		err = fmt.Errorf("middleware: the key function gave an empty key: %w", keyfunc.ErrNoKey)
	}
	return k, err
}

// scopedKey returns the key of r by key (see requestKey) joined to scope.
func scopedKey(key keyfunc.Func, r *http.Request, scope string) (string, error) {
	k, err := requestKey(key, r)
	if err == nil && scope != "" {
		k = scoped(scope, k)
	}
	return k, err
}

// decided answers r, decided into a, or lets it through.
func (m *Middleware) decided(w http.ResponseWriter, r *http.Request, a *Admission) bool {
	if m.refused(r.Context(), a) {
		return m.denied(w, r, a)
	}
	return m.admit(w, r, a)
}

// cost returns the cost of r. When the cost function is broken, the
// error is reported and r answered 500 (errAnswered), or under DryRun,
// which never blocks a request, served undecided (errUndecided).
func (m *Middleware) cost(w http.ResponseWriter, r *http.Request) (int64, error) {
	if m.opts.Cost == nil {
		return 1, nil
	}
	cost := m.opts.Cost(r)
	if cost >= 1 {
		return cost, nil
	}
	m.report(r, fmt.Errorf("%w: %d", ErrInvalidCost, cost))
	if m.opts.DryRun {
		return 0, errUndecided
	}
	badCost.Write(w, nil, false)
	return 0, errAnswered
}

// decide takes cost for key from lim into res: in place from a
// *core.Limiter, so that the Result is not copied.
func decide(ctx context.Context, lim Limiter, key string, cost int64, res *core.Result) (err error) {
	if l, ok := lim.(*core.Limiter); ok {
		return l.Take(ctx, key, cost, res)
	}
	*res, err = lim.AllowN(ctx, key, cost)
	return err
}

// failed handles a limiter error: it reports it and serves the request
// when failing open or dry-running, or answers 503 with Retry-After; an
// error wrapping core.ErrInvalidConfig (a limiter that cannot decide) is
// answered 500 unless dry-running, FailOpen or not. An
// error while r's own context was canceled (its client gone during the
// decision: the store gave up with it) is no fault of the limiter: r is
// neither served, which would serve it unchecked, nor answered. A
// deadline that ended r's context is not its client's doing: the store
// outlasted it, a fault like any other.
//
// a holds what the limiter took despite its error: the admission of the
// route that did not fail, when a request is charged on two (see
// [Routes.Select]). A request served all the same is admitted by it, as
// that route's own requests are (its headers, its shaping delay,
// MaxDelay); one not served gives it back.
func (m *Middleware) failed(w http.ResponseWriter, r *http.Request, err error, a *Admission) bool {
	if errors.Is(r.Context().Err(), context.Canceled) {
		m.drop(r.Context(), a)
		return false
	}
	m.report(r, err)
	if errors.Is(err, core.ErrInvalidConfig) && !m.opts.DryRun {
		// A limiter that cannot decide at all (a limiter of another
		// package given a zero value): no outage FailOpen was meant
		// for, and serving would serve every request of it unlimited.
		m.drop(r.Context(), a)
		notReady.Write(w, nil, false)
		return false
	}
	if m.opts.FailOpen || m.opts.DryRun {
		if a.lim != nil {
			return m.decided(w, r, a)
		}
		return true
	}
	m.drop(r.Context(), a)
	w.Header()["Retry-After"] = []string{heldRetry(r, w.Header(), m.failRetry, http.StatusServiceUnavailable)}
	unavailable.Write(w, nil, false)
	return false
}

// holds reports whether lim, which decided res with an error, still holds
// a cost: res says so (a core limiter), or lim is a Pair of several
// routes holding the admission of one (whatever limiter admitted it).
func holds(lim Limiter, res *core.Result) bool {
	if p, ok := lim.(*both.Pair); ok {
		return p.Holds()
	}
	return res.Taken()
}

// drop gives back what a holds, if anything, and leaves it zero: its
// request is not served.
func (m *Middleware) drop(ctx context.Context, a *Admission) {
	if a.lim != nil && holds(a.lim, &a.res) {
		m.giveBack(ctx, a)
	}
	*a = Admission{}
}

// decisionContext is the context r is decided with: r's, carrying
// Options.MaxDelay (core.WithMaxDelay), so that a core limiter turns a
// longer delay into the denial the request is answered with before its
// observer counts the decision.
func (m *Middleware) decisionContext(r *http.Request) context.Context {
	if m.opts.MaxDelay > 0 {
		return core.WithMaxDelay(r.Context(), m.opts.MaxDelay)
	}
	return r.Context()
}

// refused reports whether a's decision refuses the request: a denial, or an
// admission whose shaping delay passes Options.MaxDelay, which is given
// back and turned into a denial by each limit delaying it that long (see
// core.Result.DenyDelay), so that the headers, the problem body and
// OnDenied name those limits as denying. A core limiter does this itself
// (see decisionContext); a denial of it still holding its cost (its give
// back failed) is given back here, the failure reported.
func (m *Middleware) refused(ctx context.Context, a *Admission) bool {
	res := &a.res
	switch {
	case res.Allowed && m.opts.MaxDelay > 0 && res.Delay > m.opts.MaxDelay:
		m.giveBack(ctx, a)
		res.DenyDelay(m.opts.MaxDelay)
	case !res.Allowed && res.Taken():
		m.giveBack(ctx, a)
	}
	return !res.Allowed
}

// denied reports the denial in a and, unless dry-running, answers it; a is
// left zero.
func (m *Middleware) denied(w http.ResponseWriter, r *http.Request, a *Admission) (serve bool) {
	if m.opts.OnDenied != nil {
		m.opts.OnDenied(r, a.res)
	}
	if serve = m.opts.DryRun; !serve {
		m.deny(w, r, &a.res, m.headerKey(a))
	}
	*a = Admission{}
	return serve
}

// admit sets the rate-limit headers of an admitted request and waits out
// its shaping delay; neither in dry-run mode.
func (m *Middleware) admit(w http.ResponseWriter, r *http.Request, a *Admission) bool {
	if m.opts.DryRun {
		return true
	}
	h := w.Header()
	if parent, share := sharing(r, a); share {
		a.share = m.newStacked(h, parent, a)
		m.hdr.CombineKey(h, &a.res, m.headerKey(a))
		a.share.mark = fieldMark(h, m.names)
	} else {
		m.hdr.CombineKey(h, &a.res, m.headerKey(a))
	}
	if a.res.Delay > 0 {
		return m.wait(r.Context(), a)
	}
	return true
}

// wait waits out a's shaping delay. When ctx ends first, a is given back
// and left zero, and the request is not to be served.
func (m *Middleware) wait(ctx context.Context, a *Admission) bool {
	t := time.NewTimer(a.res.Delay)
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		t.Stop()
		m.giveBack(ctx, a)
		*a = Admission{}
		return false
	}
}

// refuse answers r, whose key or limiter cannot be determined (err says
// why; OnError is told), with NoKey's answer or 403, and returns
// errAnswered. Under DryRun, which never blocks a request, it writes
// nothing and returns errUndecided: r is served.
func (m *Middleware) refuse(w http.ResponseWriter, r *http.Request, err error) error {
	m.report(r, err)
	if m.opts.DryRun {
		return errUndecided
	}
	if m.opts.NoKey != nil {
		m.opts.NoKey(w, r, err)
		return errAnswered
	}
	noClient.Write(w, nil, false)
	return errAnswered
}

func (m *Middleware) report(r *http.Request, err error) {
	if m.opts.OnError != nil {
		m.opts.OnError(r, err)
	}
}

// headerKey returns the key a's Result was decided for, for a partition
// key header: a's, or, for the two routes of a Pair (see Routes.Select),
// the key of the one whose Result it is.
func (m *Middleware) headerKey(a *Admission) string {
	if p, ok := a.lim.(*both.Pair); ok && m.pk {
		return p.Key()
	}
	return a.key
}

// scoped joins a scope and a key injectively (see appendScope).
func scoped(scope, key string) string {
	return both.Scoped(scope, key)
}
