// Package login throttles failed login attempts per account and per client
// network.
//
// A [Guard] keys every attempt twice: by the submitted username (normalized
// by [NormalizeUsername], NFKC, full case folding, accents dropped and
// letters a primary-strength collation equates mapped to one, so that
// "Alice", " alice ", fullwidth "ａｌｉｃｅ" and "álice" share one counter,
// and "łukasz" and "lukasz" another; then hashed by
// package keyfunc, so raw usernames are never kept and an unknown username
// is counted exactly like a known one: the guard never knows which accounts
// exist) and by the client's network (keyfunc.ClientIP, an IPv4 address or
// an IPv6 /64 by default). An attempt proceeds to the credential check only
// when both keys admit it.
//
// With Options.Devices, an attempt carrying a device cookie the guard
// issued at an earlier successful login of the same username (spelled the
// same, byte for byte) at the same login page (URL path) is judged on
// that device's own counter instead, so that an attacker flooding an
// account with wrong passwords cannot lock its user out of their own
// devices (see [DeviceOptions] for the trade-off).
//
// Only failed attempts count: the guard takes one failure from both keys
// before the credentials are checked and refunds it when they were right.
// Taking first is what makes the limit hold under concurrency: parallel
// guesses each consume a failure atomically, so no more of them reach the
// credential check than the limits allow. A success refunds both keys and
// may reset the account's counter (Options.ResetAccountOnSuccess), never the
// network's: an attacker who logs in to an account of their own must not
// clear the counter of the network they guess from.
//
// The counters live in Options.Store, the guard's own (a memory store of
// its own when nil): a fleet of instances gives every guard the fleet's
// shared store (a Redis store, fail-closed or fail-local), not only the
// middleware's limiters, or each instance counts failures apart and a
// guesser spread over N instances has N times every budget.
//
// A throttled attempt is answered the same whichever key throttled it and
// whether or not the account exists: 429, a fixed problem+json body, and a
// Retry-After of the time until both keys would admit the attempt. No
// rate-limit header reveals counters on any response.
//
// [Guard.Handler] is the net/http form (chi included): it reads the username
// from the request body (a form or a JSON object) without consuming it, and
// learns the outcome from the response status; a handler that writes no
// response counts as a failure ([ErrNoResponse]). Routers that write the
// status after the middleware returns have their own helpers, built on
// [Guard.Start] and [Attempt.Respond]: adapters/echolimit.Login and
// adapters/ginlimit.Login. [Guard.Begin] is the manual form, for handlers
// that know the username and the outcome themselves.
package login
