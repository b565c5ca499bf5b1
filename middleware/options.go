package middleware

import (
	"net/http"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/keyfunc"
)

// Options configures a [Middleware]. The zero Options limit by client IP
// (RemoteAddr only), cost 1, every header on, fail closed.
type Options struct {
	// Key extracts the key a request is limited by. nil means the client
	// IP from RemoteAddr, grouped by /64 for IPv6 (keyfunc.ClientIP with
	// zero options). An error refuses the request, and so does an empty
	// key (under DryRun, reports it): to fall back to another key
	// instead, use keyfunc.First.
	Key keyfunc.Func
	// Cost returns a request's cost; nil means 1. A cost below 1 is a bug
	// in the function: the request is answered 500 (under DryRun, served)
	// and OnError is called.
	Cost func(*http.Request) int64
	// Skip exempts the requests it reports true for.
	Skip func(*http.Request) bool
	// CountIf, when set, makes a request count only if CountIf reports true
	// for its response status: the cost is taken before the handler runs
	// and refunded after it otherwise. For a login route,
	// func(s int) bool { return s >= 400 } counts failures only. It is
	// asked about final statuses only: a handler that writes nothing (as
	// under echo.WrapMiddleware, where echo writes a returned error after
	// the middleware returns) or takes the connection over leaves the
	// request counted (see [Admission.End]).
	CountIf func(status int) bool
	// Headers writes the rate-limit headers; nil means every header of
	// headers.New(headers.Options{}). Whatever it omits or renames, every
	// 429 answer of the middleware carries a Retry-After of at least 1
	// second (see Denied). A Writer with a PartitionKeySecret adds the
	// draft 11 "pk" parameter: a keyed hash of the key the request is
	// counted by (the client's key, joined to its route's scope: one pk
	// per bucket), never the key itself; building it costs an allocation
	// more per request with the default key.
	Headers *headers.Writer
	// FailOpen serves requests when the limiter fails (a store error);
	// otherwise they are answered 503 with a Retry-After of FailRetryAfter.
	// A request whose context was canceled during the decision (its
	// client gone) is never served: its error is not the limiter's fault.
	// Nor is one whose limiter cannot decide at all (an error wrapping
	// core.ErrInvalidConfig): that is answered 500.
	FailOpen bool
	// FailRetryAfter is the Retry-After of 503 answers; 0 means 1 second.
	FailRetryAfter time.Duration
	// OnError is called with every limiter or configuration error, and
	// the request it concerns (never nil): refund errors and
	// ErrNoResponse, reported after the handler ran, come with the
	// request the middleware was given.
	OnError func(r *http.Request, err error)
	// DryRun decides and reports (OnDenied) but never blocks nor delays a
	// request, and writes no rate-limit header: a shadow mode to try a
	// policy on live traffic. A request whose key, limiter or cost cannot
	// be determined is served too, its error reported to OnError (NoKey is
	// not called).
	DryRun bool
	// OnDenied is called for every denied request, in dry-run mode too.
	OnDenied func(r *http.Request, res core.Result)
	// Denied writes the answer to a denied request, replacing the default:
	// 429 with a problem+json body, or 413 when the request's cost exceeds
	// what a limit ever grants (res.RetryAfter is core.Never). The
	// rate-limit headers are already set, and Retry-After with them: the
	// denial's RetryAfter in whole seconds, rounded up, at least 1, even
	// when a custom Limiter's Result says 0 or less. For a core.Never
	// denial Retry-After is set only if Denied answers 429: then it is the
	// time until the limit is replenished (ResetAfter), at least 1 second.
	Denied func(w http.ResponseWriter, r *http.Request, res core.Result)
	// NoKey writes the answer to a request whose key or limiter cannot be
	// determined; nil means 403 with a problem+json body. Under DryRun
	// such a request is served instead.
	NoKey func(w http.ResponseWriter, r *http.Request, err error)
	// Preflight says how CORS preflight requests are limited; the zero
	// value is [PreflightOwnBucket]. In every mode a preflight that reaches
	// a handler is limited as that handler's route.
	Preflight Preflight
	// MaxDelay bounds the shaping delay a request may wait: a longer one is
	// given back and answered as a denial. The headers count with it (see
	// core.WithMaxDelay): a denial's Retry-After is the wait after which
	// the same request is served within MaxDelay, X-RateLimit-Remaining
	// and RateLimit's r what is served within it at once. 0 means no
	// bound beyond the bucket's own capacity.
	MaxDelay time.Duration
}
