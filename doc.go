// Package floodgate is a rate limiter for Go HTTP services: per-client
// limits on one process or across a fleet, exact under concurrency, with
// the response headers well-behaved clients obey.
//
// This root package holds no code; import what you need:
//
//   - [github.com/floodgate-go/floodgate/core]: the algorithms (GCRA, token
//     bucket, leaky bucket with shaping delays, fixed window, sliding log,
//     sliding window counter, quota/linear hybrid, rolling-window quotas,
//     warm-up, backoff for logins), policies of several limits decided
//     all-or-nothing, the bounded in-memory store and the [core.Limiter]
//     usable without HTTP.
//   - [github.com/floodgate-go/floodgate/core/coretest]: a fake clock and the
//     conformance suite every store passes.
//   - [github.com/floodgate-go/floodgate/keyfunc]: what a request is limited
//     by: the client IP (trusted proxies only, IPv6 prefixes), hashed API
//     keys and users, routes, injective joins.
//   - [github.com/floodgate-go/floodgate/core/redisstore]: the Redis store
//     for fleets (standalone, Sentinel or Cluster): one script call per
//     decision on Redis's clock, failure modes, a deny cache.
//   - [github.com/floodgate-go/floodgate/headers]: Retry-After,
//     X-RateLimit-* and the IETF RateLimit / RateLimit-Policy fields.
//   - [github.com/floodgate-go/floodgate/middleware]: the net/http
//     middleware (problem+json 429s, per-route and per-tenant policies,
//     count-only-failures, shaping, fail open or closed, dry run), and
//     [github.com/floodgate-go/floodgate/middleware/login] for login
//     throttling per account and per network.
//   - [github.com/floodgate-go/floodgate/adapters/chilimit],
//     [github.com/floodgate-go/floodgate/adapters/ginlimit] and
//     [github.com/floodgate-go/floodgate/adapters/echolimit]: the middleware
//     mounted the router's way.
//
// A limiter, with every error checked (a configuration error wraps
// core.ErrInvalidConfig; a decision error is a store failure, to be
// answered fail-open or fail-closed, never ignored):
//
//	p, err := core.Single("api", core.GCRA{Rate: core.PerMinute(100), Burst: 20})
//	if err != nil {
//		return err
//	}
//	lim, err := core.NewLimiter(p)
//	if err != nil {
//		return err
//	}
//	res, err := lim.Allow(ctx, clientKey)
//	if err != nil {
//		return err // the store failed: decide fail-open or fail-closed
//	}
//	if !res.Allowed {
//		// refuse; retry after res.RetryAfter
//	}
//
// The same as HTTP middleware, limiting each client IP (see the package
// example):
//
//	m, err := middleware.New(lim, middleware.Options{})
//	if err != nil {
//		return err
//	}
//	return http.ListenAndServe(addr, m.Handler(mux))
package floodgate
