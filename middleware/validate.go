package middleware

import (
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/isnil"
)

// validator is a Selector of this package that can check its configuration
// before it serves ([One], [Routes], [Tiers]).
type validator interface{ validate() error }

// checkConfig refuses what would make the middleware fail on its first
// request: a nil or typed-nil Selector, a Selector of this package with a
// bad limiter, an unknown Preflight mode, or a negative duration; and
// [Tiers] without Options.Key, which would count each plan per client IP
// rather than per tenant. Its errors wrap core.ErrInvalidConfig.
func checkConfig(sel Selector, opts *Options) error {
	if isnil.Value(sel) {
		return fmt.Errorf("middleware: nil selector (%T): %w", sel, core.ErrInvalidConfig)
	}
	if v, ok := sel.(validator); ok {
		if err := v.validate(); err != nil {
			return err
		}
	}
	if _, ok := sel.(tierSelector); ok && opts.Key == nil {
		return fmt.Errorf("middleware: Tiers without Options.Key would count each plan per client IP, not per tenant "+
			"(a tenant calling from N addresses gets N times its plan): give Options.Key: keyfunc.User(tenantOf), "+
			"the tenant your authentication verified, or a keyfunc.ClientIP key to count per IP on purpose: %w", core.ErrInvalidConfig)
	}
	if opts.Preflight > PreflightAsOptions {
		return fmt.Errorf("middleware: unknown %v: %w", opts.Preflight, core.ErrInvalidConfig)
	}
	if opts.FailRetryAfter < 0 || opts.MaxDelay < 0 {
		return fmt.Errorf("middleware: negative FailRetryAfter or MaxDelay: %w", core.ErrInvalidConfig)
	}
	return nil
}

// Validate returns an error wrapping core.ErrInvalidConfig if m cannot
// serve: a nil *Middleware or one not made by [New] or [NewSelect] (the
// zero Middleware). Router adapters call it when they are mounted, so that
// such a mistake stops the program at start-up, not at the first request.
func (m *Middleware) Validate() error {
	if m == nil || m.sel == nil || m.key == nil || m.hdr == nil {
		return fmt.Errorf("middleware: nil or zero *Middleware, not made by New or NewSelect: %w", core.ErrInvalidConfig)
	}
	return nil
}

// mustValidate panics with m's Validate error: a configuration mistake
// found while the handler chain is built, at start-up.
func (m *Middleware) mustValidate() {
	if err := m.Validate(); err != nil {
		panic(err)
	}
}

// refuseInvalid answers a request to an invalid middleware (see Validate)
// with 500, so that calling Begin on a zero Middleware fails closed
// instead of panicking.
func refuseInvalid(w http.ResponseWriter) {
	notReady.Write(w, nil, false)
}

// checkNext refuses a nil or typed-nil next handler when the handler chain
// is built (every request would panic on it), with an error that says what
// to give: http.ListenAndServe(addr, nil) makes nil look like the default
// ServeMux. who names the middleware ("Middleware", "Concurrency").
func checkNext(who string, next http.Handler) {
	if !isnil.Value(next) {
		return
	}
	panic(fmt.Errorf("middleware: %s.Handler(%s): no handler to pass admitted requests to: give the one they go to (http.DefaultServeMux for handlers registered with http.Handle): %w",
		who, isnil.Describe(next), core.ErrInvalidConfig))
}
