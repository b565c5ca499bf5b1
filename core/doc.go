// Package core decides whether a request may pass a rate limit.
//
// It holds the algorithms ([GCRA], [TokenBucket], [LeakyBucket], [FixedWindow],
// [SlidingLog], [SlidingWindow], [Hybrid], [RollingWindow], [WarmUp],
// [Backoff]), the
// [Policy] that groups one or more named limits decided all-or-nothing, the
// [Result] of a decision, the [Store] interface that keeps per-key state, the
// bounded in-memory store ([MemoryStore]) and the [Limiter] that ties a policy,
// a store and a [Clock] together.
//
// Every algorithm is a plain value validated once, when a policy is built.
// Its step is a pure function of (state, now, cost): no locks, no I/O and no
// clock reads, so a store can apply it atomically however it likes.
//
// A refund ([Limiter.Refund]) gives a decision back at most once, whatever
// copies of its Result are refunded, and only as far as that very take
// still holds part of the limits' state: a late refund (after the state has
// drained, refilled, moved to a new window or been reset) gives nothing
// back, so refunds never let a client past what the limits would allow had
// the refunded takes never happened (unless an injected clock steps back:
// see [Limiter.Refund]). In the algorithms whose state is a span of time
// (GCRA, LeakyBucket, TokenBucket, WarmUp, Hybrid), a refund of an earlier
// take moves the later takes' spans down; a Limiter logs each refund while
// a take it may have moved can still give something back (the policy's
// longest hold, at most the refund window), so that a later take's refund
// gives back only what that take still holds where it was moved. The log
// is the limiter's own: on a store shared by several processes, another
// process's refunds are not in it.
//
// # Shadow limits
//
// A limit with Shadow set ([Limit.Shadow], or the word shadow in the rate
// syntax: "minute: 100/min; day: shadow 5000/day") is decided, counted and
// reported, never enforced, so that a new limit can be rolled out by
// looking first:
//
//   - The enforced limits decide every request exactly as if the shadow
//     ones were absent: Allowed, the binding limit, Remaining, RetryAfter,
//     [Result.Limits] and so the headers come from them alone.
//   - Each shadow limit keeps its own state, as if it were the policy's
//     only limit: it takes what it alone would admit, whatever the
//     enforced verdict, so what it would deny ([Result.ShadowDenied],
//     [Decision.ShadowDenied], the exporters' shadow_denied) is what it
//     would really deny were it enforced alone. Under [WithMaxDelay] (the
//     middleware's MaxDelay), a shaping shadow limit decides as the limit
//     alone does under it: a take it would delay longer is a denial that
//     takes nothing. Its state lives in the
//     limiter's store under the policy "<policy>/shadow:<limit>", apart
//     from the enforced limits' (enforcing it later starts it afresh).
//   - [Result.ShadowLimits] reports each shadow limit's verdict and state,
//     for takes and peeks; [Limiter.Reset] forgets a key in the shadow
//     limits too. A refund gives back what the enforced limits took only:
//     on a route that refunds (count-only-if), a shadow limit counts every
//     request, and overstates what it would deny.
//   - A shadow limit never fails a request: when its store fails, it is
//     left undecided (absent from ShadowLimits).
//
// The cost: each shadow limit is one more decision per take on the same
// store (on the memory store about as much as the enforced one; on the
// Redis store one more script call, made while the enforced one is in
// flight, so a take waits about one round trip either way). A policy holds
// at most [MaxLimits] limits, shadow ones included, and at least one
// enforced one.
//
// Time is kept as integer nanoseconds since the Unix epoch. Package core uses
// the standard library only and never imports net/http.
//
// # Rate syntax
//
// A limit can be written as a string and parsed with [ParseAlgorithm]; a
// policy of several limits with [ParsePolicy]. Every algorithm's String
// method writes this syntax back. Some limits:
//
//	100/min                               GCRA: 100 per minute, 100 at once
//	10/s burst 20                         GCRA: 10 per second, 20 at once
//	5/15m                                 GCRA: 5 per 15 minutes
//	1000/day fixed-window                 1,000 per calendar day (UTC)
//	100/min sliding                       SlidingWindow (sliding-window)
//	10/s leaky-bucket burst 20 no-delay 5 shaping, as nginx's burst=19 delay=4
//	10000/day rolling-window every 1h cap 1000
//	10/s warm-up 1m cold 4                WarmUp over 1 minute from 4× slower
//	5/15m backoff base 1m max 1h          5 free failures per 15 min, then 1m, 2m, 4m … 1h
//
// and a policy of two named limits:
//
//	burst: 10/s burst 20; daily: 10000/day fixed-window
//
// The grammar (tokens are separated by white space; the rate comes first,
// then words in any order, each at most once):
//
//	policy   = item { ";" item }                    (1 to MaxLimits items)
//	item     = [ name ":" ] limit
//	name     = namechar { namechar } | quoted         (quoted: Go syntax, "per user")
//	namechar = letter | digit | "-" | "_" | "."
//	limit    = rate { algorithm | parameter }
//	rate     = count "/" duration                   (no spaces: 100/min)
//	count    = digit { digit }                      (a whole number ≥ 1)
//	duration = unit | number unit { number unit }   (units decreasing: 1h30m)
//	number   = digit { digit } [ "." digit { digit } ]
//	unit     = "ns" | "us" | "µs" | "ms" | "s" | "sec" | "second" | "seconds"
//	         | "m" | "min" | "minute" | "minutes" | "h" | "hr" | "hour" | "hours"
//	         | "d" | "day" | "days" | "w" | "week" | "weeks"
//
// A unit alone is one of it ("/min" is "/1m"). A day is 24 hours and a week
// 7 days; months and years, whose length varies, are refused. A duration is
// a whole number of nanoseconds in (0, 2^60 ns], about 36 years: "1.5h" is
// 90 minutes, "1.5ns" is an error. Words are lowercase.
//
// A limit without a name is named like the policy when it is its only
// limit, and otherwise after its period: "second", "minute", "hour", "day",
// or the period as written ("15m", "7d").
//
// The algorithm words (GCRA is the default and need not be named) and what
// the rate COUNT/PERIOD sets:
//
//	gcra                      GCRA           Rate = COUNT/PERIOD
//	token-bucket, token       TokenBucket    Rate = COUNT/PERIOD
//	leaky-bucket, leaky       LeakyBucket    Rate = COUNT/PERIOD
//	fixed-window, fixed       FixedWindow    Quota = COUNT, Window = PERIOD
//	sliding-window, sliding   SlidingWindow  Quota = COUNT, Window = PERIOD
//	sliding-log               SlidingLog     Quota = COUNT, Window = PERIOD
//	hybrid                    Hybrid         Quota = COUNT, Window = PERIOD
//	rolling-window, rolling   RollingWindow  Quota = COUNT, Window = PERIOD
//	warm-up D, warmup D       WarmUp         Rate = COUNT/PERIOD, WarmUp = D
//	backoff                   Backoff        Free = COUNT, Window = PERIOD
//
// The parameter words, each valid only with the algorithms named (N is a
// count, D a duration, F a decimal number such as 2.5):
//
//	burst N          gcra, token-bucket  Burst (default COUNT), N ≥ 1
//	                 leaky-bucket        Capacity (default COUNT), N ≥ 1
//	no-delay N       leaky-bucket        NoDelay (default 0), N ≥ 0
//	anchored         fixed-window        Anchored
//	count-rejected   sliding-log         CountRejected
//	every D          rolling-window      Period (required)
//	cap N            rolling-window      PeriodCap (default COUNT), N ≥ 1
//	cold F           warm-up             ColdFactor (default 3), F ≥ 1
//	base D           backoff             Base (default 1s)
//	max D            backoff             Max (default 15m, or base if longer)
//	forgive D        backoff             Forgive (default 24h, or max if longer)
//
// A value that would mean "the default" in a Go struct (burst 0, cap 0,
// cold 0, base 0s) is refused rather than silently replaced: leave the word
// out instead. Beyond the syntax, the values are checked by the algorithm's
// own Validate (a SlidingLog COUNT of at most [MaxSlidingLogQuota], an every
// that divides the window, a no-delay within the burst, …).
//
// An error is a [*ParseError] wrapping [ErrInvalidConfig]: it names the
// offending token, its 1-based byte column and what was wanted:
//
//	core: unknown word "brust" at column 6 (did you mean "burst"?): want …
//
// The canonical form, which String writes, is the rate with the period in
// the largest unit it is a whole number of ("100/min", "5/15m", "1/1500ms";
// a unit alone for one of it: s, min, hour, day, ms, us, ns), then the
// algorithm's canonical name unless it is gcra, then the parameters that
// differ from their defaults in the order of the table above, separated by
// single spaces. Parsing a String gives back the algorithm with its defaults
// filled in.
package core
