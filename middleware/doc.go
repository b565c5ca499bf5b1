// Package middleware limits the requests of a net/http server.
//
// A [Middleware] extracts a key from each request (the client IP by
// default, see package keyfunc), lets a [Selector] pick the limiter that
// decides it (one limiter, per-route [Routes], per-tenant [Tiers]), asks the
// limiter, writes the rate-limit headers (package headers) and then either
// calls the next handler or answers 429 with an RFC 9457
// application/problem+json body. The short forms: [PerIP] ("100/min" per
// client IP), [Rate] (a rate string wherever a Limiter is given) and
// [APIKeyOrIP] (API-key clients and anonymous clients at their own rates).
//
// It never waves a request through by accident: a request whose key cannot
// be extracted is refused (403) unless Options.Key itself falls back (see
// keyfunc.First); a store error fails closed (503 with Retry-After) unless
// Options.FailOpen says otherwise.
//
// Count-only-if (Options.CountIf) takes the request's cost before the
// handler runs and refunds it afterwards when the response status says the
// request should not count, so parallel requests cannot race past a limit.
// It never guesses a success: a handler that returns without writing a
// response leaves the request counted, reported as [ErrNoResponse].
// An admission is given back at most once: [Admission.End] acts on its
// first call only, on whichever copy of the Admission it is made (copies
// share it), whatever the limiter.
// Shaping delays (core.LeakyBucket) are waited out before the handler, and
// given back when the request is cancelled while waiting.
//
// Every 429 carries Retry-After, in whole seconds, at least 1, also when a
// custom [Limiter] or Options.Denied produced the denial; a request whose
// cost no wait would ever admit is answered 413 instead.
//
// Per-route limits cannot be walked around with another spelling of the
// same request: HEAD is limited in the GET route's buckets, methods match
// without case, and paths that other routers serve with a route's handler
// (a trailing slash, "//", "..", another case) are limited as that route
// (see [Routes]). CORS preflights are limited like the route they
// announce, in buckets of their own by default (see [Preflight]).
//
// Constructors refuse nil, typed-nil and zero essentials with an error
// wrapping core.ErrInvalidConfig, so that a configuration mistake stops the
// program at start-up instead of panicking at the first request.
//
// Router adapters (adapters/chilimit, ginlimit, echolimit) call
// [Middleware.Begin] and [Admission.End] directly.
package middleware
