package middleware

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/internal/problem"
	"github.com/floodgate-go/floodgate/internal/seconds"
	"github.com/floodgate-go/floodgate/keyfunc"
)

// ConcurrencyLimiter is what [Concurrency] needs of a concurrency limiter:
// *inflight.Memory and *redisinflight.Limiter implement it. Acquire fails
// with an error wrapping inflight.ErrFull when every slot of the key is in
// use; any other error is a fault of the limiter (503, or served with
// FailOpen).
type ConcurrencyLimiter interface {
	Acquire(ctx context.Context, key string) (*inflight.Slot, error)
}

// ConcurrencyWaiter is a ConcurrencyLimiter that can also wait for a slot
// (see ConcurrencyOptions.Wait); Wait fails with an error wrapping
// inflight.ErrQueueFull when the key's wait line is full.
type ConcurrencyWaiter interface {
	ConcurrencyLimiter
	Wait(ctx context.Context, key string) (*inflight.Slot, error)
}

// ConcurrencyOptions configures a [Concurrency]. The zero value limits by
// client IP (RemoteAddr only), refuses at once when the key's slots are
// all in use, and fails closed.
type ConcurrencyOptions struct {
	// Key extracts the key a request is limited by, as Options.Key; nil
	// means the client IP (keyfunc.ClientIP with zero options). An error
	// or an empty key refuses the request (NoKey).
	Key keyfunc.Func
	// Skip exempts the requests it reports true for.
	Skip func(*http.Request) bool
	// Wait, when positive, makes a request whose key has no free slot wait
	// for one, first come first served, for at most Wait (less if the
	// request's context ends first); the limiter must then implement
	// [ConcurrencyWaiter]. 0 refuses such requests at once.
	Wait time.Duration
	// RetryAfter is the Retry-After of 429 answers (a hint: a slot frees
	// when another request of the key ends); 0 means 1 second.
	RetryAfter time.Duration
	// FailOpen serves requests when the limiter fails (Redis unreachable
	// in fail-closed mode); otherwise they are answered 503 with a
	// Retry-After of FailRetryAfter (0 means 1 second).
	FailOpen       bool
	FailRetryAfter time.Duration
	// OnError is called with every limiter error, including failed
	// releases.
	OnError func(r *http.Request, err error)
	// OnDenied is called for every request refused for want of a slot.
	OnDenied func(r *http.Request)
	// Denied writes the answer to a refused request, replacing the default
	// 429 problem+json body; Retry-After is already set, and is kept on a
	// 429 it writes.
	Denied func(w http.ResponseWriter, r *http.Request)
	// NoKey writes the answer to a request whose key cannot be extracted;
	// nil means 403 with a problem+json body.
	NoKey func(w http.ResponseWriter, r *http.Request, err error)
}

// Concurrency limits the requests of each key in flight at once: a
// request takes a slot before the handler runs and gives it back when the
// handler returns — normally, by a panic (the slot is released, the panic
// goes on), or once the handler notices its client has gone (the slot is
// held while the handler still runs, since its work goes on). A request
// whose handler took the connection over (http.Hijacker, through
// http.ResponseController too: a WebSocket upgrade) and returned normally
// gives its slot back when that connection is closed (or collected
// unclosed), since its goroutines serve it on: the handler's writer wraps
// the connection it hijacks (the one under it is its NetConn method's;
// CloseWrite is forwarded). A limiter mounted twice on a request's path (a
// global Concurrency and a route's of the same limiter) takes one slot of
// a key per request: the inner mount finds the outer's writer (under
// writers that unwrap, as http.ResponseController expects) holding a slot
// of the key in the same limiter and takes none; under a writer that
// hides it, the request takes two. It is safe for concurrent use.
//
// A slot covers the handler's work, not the connection: a handler's
// Write blocks while a slow client reads, so its slot is held until all
// but the last bytes are sent; the few KiB net/http still buffers when it
// returns (and what the kernel's socket buffer holds) are sent after the
// slot is back, as a refused request's 429 is. A client reading slowly
// holds connections and goroutines, as it can without any slot: bound
// those with http.Server's WriteTimeout.
//
// It knows only when the handler it wraps returns: mount it inside
// anything that answers and returns while the work goes on, such as
// http.TimeoutHandler (http.TimeoutHandler(c.Handler(h), d, msg)), never
// around it. Around it, the slot of a request that timed out comes back
// at its 503 while h still runs, and slow requests pass the limit
// (TestConcurrencyAndTimeoutHandler: 2 in flight at a limit of 1).
type Concurrency struct {
	lim        ConcurrencyLimiter
	wait       ConcurrencyWaiter // nil unless opts.Wait > 0
	opts       ConcurrencyOptions
	key        keyfunc.Func
	retry      string
	failRetry  string
	violations []string
}

// tooManyInFlight answers a request refused for want of a slot.
var tooManyInFlight = problem.Prepare(problem.Details{Type: ProblemType, Title: "Too Many Requests",
	Status: http.StatusTooManyRequests, Detail: "too many requests of this client are in flight", Violated: []string{}})

// NewConcurrency returns a middleware limiting the requests of each key in
// flight at once with l. It refuses a nil limiter, one whose Limit method
// reports no slot (a zero value, not made by its constructor), negative
// durations, and
// a positive Wait with a limiter that cannot wait, with an error wrapping
// core.ErrInvalidConfig.
func NewConcurrency(l ConcurrencyLimiter, opts ConcurrencyOptions) (*Concurrency, error) {
	if isnil.Value(l) {
		return nil, fmt.Errorf("middleware: NewConcurrency: nil limiter (%T): %w", l, core.ErrInvalidConfig)
	}
	if n, ok := l.(interface{ Limit() int }); ok && n.Limit() < 1 {
		// A zero *inflight.Memory or *redisinflight.Limiter: it would
		// fail every request (serve every one, with FailOpen).
		return nil, fmt.Errorf("middleware: NewConcurrency: limiter %T has no limit (a zero value, not made by its constructor): %w", l, core.ErrInvalidConfig)
	}
	if opts.Wait < 0 || opts.RetryAfter < 0 || opts.FailRetryAfter < 0 {
		return nil, fmt.Errorf("middleware: NewConcurrency: negative duration: %w", core.ErrInvalidConfig)
	}
	c := &Concurrency{lim: l, opts: opts, key: opts.Key, violations: []string{"concurrency"}}
	if opts.Wait > 0 {
		w, ok := l.(ConcurrencyWaiter)
		if !ok {
			return nil, fmt.Errorf("middleware: NewConcurrency: Wait set, but %T cannot wait: %w", l, core.ErrInvalidConfig)
		}
		c.wait = w
	}
	if c.key == nil {
		k, err := keyfunc.ClientIP(keyfunc.IPOptions{})
		if err != nil {
			return nil, err
		}
		c.key = k
	}
	c.retry = strconv.FormatInt(seconds.Positive(opts.RetryAfter), 10)
	c.failRetry = strconv.FormatInt(seconds.Positive(opts.FailRetryAfter), 10)
	return c, nil
}

// Handler wraps next: the middleware as a func(http.Handler) http.Handler.
// It panics, when the handler chain is built, if c is nil or was not made
// by [NewConcurrency], or if next is nil or a typed nil (for the default
// ServeMux, give http.DefaultServeMux).
func (c *Concurrency) Handler(next http.Handler) http.Handler {
	if c == nil || c.lim == nil {
		panic(fmt.Errorf("middleware: nil or zero *Concurrency, not made by NewConcurrency: %w", core.ErrInvalidConfig))
	}
	checkNext("Concurrency", next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slot, key, ok := c.begin(w, r)
		if !ok {
			return
		}
		if slot == nil { // (skipped, or FailOpen: nothing to hold)
			next.ServeHTTP(w, r)
			return
		}
		// The writer carries the slot (one allocation: no release
		// closure as well).
		hw, held := newHeldWriter(w)
		held.c, held.r, held.slot, held.key = c, r, slot, key
		returned := false
		defer func() {
			// A connection taken over holds the slot until it is
			// closed (see heldWriter); a panic releases it all the same.
			if !returned || !held.hijacked.Load() {
				held.release()
			}
		}()
		next.ServeHTTP(hw, r)
		returned = true
	})
}

// Begin takes a slot for r. When it returns false it has written the whole
// answer (429, 403 or 503), or r's client went away while it waited, and
// the handler must not run. When it returns true the handler may run, and
// release must be called when it has returned (in a defer, so that a panic
// releases too); calling release again does nothing. Users of gin or
// echo call it in their own handler and defer the release themselves (a
// handler that takes the connection over and returns must release when
// that connection is closed instead, as [Concurrency.Handler] does).
func (c *Concurrency) Begin(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	slot, _, ok := c.begin(w, r)
	switch {
	case !ok:
		return nil, false
	case slot == nil:
		return nothing, true
	}
	return func() { c.release(r, slot) }, true
}

// begin is Begin, returning the slot taken and its key: nil when ok but
// nothing is held (skipped, FailOpen on a failure, or a slot of the key
// held already by a mount of the same limiter outside this one).
func (c *Concurrency) begin(w http.ResponseWriter, r *http.Request) (slot *inflight.Slot, key string, ok bool) {
	if c == nil || c.lim == nil {
		refuseInvalid(w)
		return nil, "", false
	}
	if c.opts.Skip != nil && c.opts.Skip(r) {
		return nil, "", true
	}
	key, err := requestKey(c.key, r)
	if err != nil {
		c.report(r, err)
		if c.opts.NoKey != nil {
			c.opts.NoKey(w, r, err)
		} else {
			noClient.Write(w, nil, false)
		}
		return nil, "", false
	}
	if holdsSlot(w, c.lim, key) {
		return nil, "", true // (the request holds a slot of key in c.lim already: see Handler)
	}
	slot, waitedOut, err := c.acquire(r.Context(), key)
	switch {
	case err == nil:
		return slot, key, true
	case errors.Is(err, inflight.ErrFull), errors.Is(err, inflight.ErrQueueFull), waitedOut:
		c.refuse(w, r)
		return nil, "", false
	case r.Context().Err() != nil:
		return nil, "", false // the client went away while waiting: nobody to answer
	}
	c.report(r, err)
	if c.opts.FailOpen {
		return nil, "", true
	}
	w.Header()["Retry-After"] = []string{heldRetry(r, w.Header(), c.failRetry, http.StatusServiceUnavailable)}
	unavailable.Write(w, nil, false)
	return nil, "", false
}

func nothing() {}

// acquire takes a slot of key, waiting up to opts.Wait when set;
// waitedOut reports a failure when that wait ran out while ctx lives. It
// is read from the wait's context, not from the error: a limiter's error
// wrapping context.DeadlineExceeded (a store's own timeout) is a fault.
func (c *Concurrency) acquire(ctx context.Context, key string) (slot *inflight.Slot, waitedOut bool, err error) {
	if c.wait == nil {
		slot, err = c.lim.Acquire(ctx, key)
		return slot, false, err
	}
	wctx, cancel := context.WithTimeout(ctx, c.opts.Wait)
	defer cancel()
	slot, err = c.wait.Wait(wctx, key)
	return slot, err != nil && wctx.Err() != nil && ctx.Err() == nil, err
}

// release gives slot back, even when r's context has ended (a client that
// went away): the release must still reach the store.
func (c *Concurrency) release(r *http.Request, slot *inflight.Slot) {
	if err := slot.Release(context.WithoutCancel(r.Context())); err != nil && !errors.Is(err, inflight.ErrReleased) {
		c.report(r, err)
	}
}

// refuse answers a request refused for want of a slot: 429 with
// Retry-After, or opts.Denied.
func (c *Concurrency) refuse(w http.ResponseWriter, r *http.Request) {
	if c.opts.OnDenied != nil {
		c.opts.OnDenied(r)
	}
	retry := heldRetry(r, w.Header(), c.retry, refusalStatus(c.opts.Denied != nil))
	w.Header()["Retry-After"] = []string{retry}
	if c.opts.Denied != nil {
		c.opts.Denied(&retryOn429{ResponseWriter: w, value: retry}, r)
		return
	}
	tooManyInFlight.Write(w, c.violations, false)
}

func (c *Concurrency) report(r *http.Request, err error) {
	if c.opts.OnError != nil {
		c.opts.OnError(r, err)
	}
}
