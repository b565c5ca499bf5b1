package middleware

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core"
)

// Admission is an admitted request whose cost may still be refunded: see
// [Middleware.Begin].
type Admission struct {
	m    *Middleware
	r    *http.Request // the request admitted, for Options.OnError
	lim  Limiter
	key  string
	cost int64
	res  core.Result
	// share is what the admission tells the middlewares inside this one
	// (see stacked), or nil.
	share *stacked
	// done is set by the first End. It is shared by every copy of the
	// Admission (made when it is admitted counting: see arm), so that
	// copies are ended once together, whatever the limiter: one of the
	// application's own may not refuse a second refund of a decision.
	done *atomic.Bool
}

// arm readies a counting admission for End, before it is returned and
// copied: its copies share one done flag.
func (a *Admission) arm() {
	if a.Counting() {
		a.done = new(atomic.Bool)
	}
}

// Request returns the request to give the handler behind the middleware:
// r, or, when the admission took the last of a limit, r with a context
// that tells the middlewares inside this one of it, so that one refusing
// the request answers with the wait for this limit's next admission
// rather than the wait its fields tell of (when it is whole again). A
// router adapter calling [Middleware.Begin] gives its handler the request
// it returns.
func (a *Admission) Request(r *http.Request) *http.Request {
	if a.share == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), stackedKey{}, a.share))
}

// Counting reports whether [Admission.End] needs the response status: the
// middleware counts only some statuses (Options.CountIf).
func (a *Admission) Counting() bool { return a.lim != nil && a.m.opts.CountIf != nil }

// Result returns the decision that admitted the request; the zero Result
// for skipped or unlimited requests.
func (a *Admission) Result() core.Result { return a.res }

// ErrNoResponse is reported (through Options.OnError) when a counting
// request's handler returned without writing a response (End was given
// status 0): the middleware cannot tell its outcome, and the request stays
// counted. This is what happens when a router writes the status after the
// middleware has returned, as echo does for a handler's returned error
// under echo.WrapMiddleware: mount the router's adapter (echolimit.Limit,
// ginlimit.Limit, chilimit.Limit), or write the status in the handler.
var ErrNoResponse = errors.New("middleware: the handler returned without writing a response; the request stays counted")

// End reports the response status of the admitted request, so that a
// request Options.CountIf says should not count is refunded. Calling it is
// needed only when [Admission.Counting] is true; it is safe either way.
// Only the first call acts, even when calls race, and whichever copy of
// the Admission it is made on: copies share it, so nothing is ever given
// back twice, whatever the limiter.
//
// CountIf is asked about final statuses only (200 and above). End never
// guesses a success: status 0 (no response was written) and 1xx (101: a
// connection taken over, whose outcome no status tells) leave the request
// counted, and status 0 is reported to Options.OnError as [ErrNoResponse].
func (a *Admission) End(ctx context.Context, status int) {
	if !a.Counting() || a.done == nil || !a.done.CompareAndSwap(false, true) {
		return
	}
	switch {
	case status == 0:
		a.m.report(a.r, ErrNoResponse)
		return
	case status < 200 || a.m.opts.CountIf(status):
		return
	}
	if _, err := a.lim.Refund(context.WithoutCancel(ctx), a.key, a.res); err != nil && !errors.Is(err, core.ErrRefunded) {
		a.m.report(a.r, err)
	}
}

// giveBack refunds an admission whose request will not be served.
func (m *Middleware) giveBack(ctx context.Context, a *Admission) {
	if _, err := a.lim.Refund(context.WithoutCancel(ctx), a.key, a.res); err != nil {
		m.report(a.r, err)
	}
}
