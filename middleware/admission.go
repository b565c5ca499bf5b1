package middleware

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core"
)

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

// giveBack refunds an admission whose request will not be served.
func (m *Middleware) giveBack(ctx context.Context, a *Admission) {
	if _, err := a.lim.Refund(context.WithoutCancel(ctx), a.key, a.res); err != nil {
		m.report(nil, err)
	}
}
