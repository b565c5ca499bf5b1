package middleware

import (
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/problem"
)

// ProblemType is the RFC 9457 problem type of a 429 answer, registered by
// draft-ietf-httpapi-ratelimit-headers.
const ProblemType = problem.QuotaExceeded

// The middleware's answers, rendered once.
var (
	// tooMany and tooLarge answer denials; each names the violated limits.
	tooMany = problem.Prepare(problem.Details{Type: ProblemType, Title: "Too Many Requests",
		Status: http.StatusTooManyRequests, Detail: "the request exceeds the rate limit", Violated: []string{}})
	tooLarge = problem.Prepare(problem.Details{Type: ProblemType, Title: "Content Too Large",
		Status: http.StatusRequestEntityTooLarge, Detail: "the request costs more than the rate limit ever grants at once", Violated: []string{}})

	noClient    = prepare(http.StatusForbidden, "the request cannot be attributed to a client for rate limiting")
	badCost     = prepare(http.StatusInternalServerError, "the rate limit cost of this request is invalid")
	unavailable = prepare(http.StatusServiceUnavailable, "the rate limiter is unavailable")
	notReady    = prepare(http.StatusInternalServerError, "the rate limiter is not configured")
)

// prepare renders an answer other than a denial: status, its standard
// title, and detail.
func prepare(status int, detail string) *problem.Prepared {
	return problem.Prepare(problem.Details{Title: http.StatusText(status), Status: status, Detail: detail})
}

// writeDenied writes the default answer to a denial: an RFC 9457 problem
// naming the violated limits in "violated-policies". It is 429 Too Many
// Requests with Retry-After, except for a request whose cost exceeds what a
// limit ever grants at once (RetryAfter core.Never): no wait would let it
// pass, so it is 413 Content Too Large, without Retry-After.
func writeDenied(w http.ResponseWriter, res *core.Result) {
	var buf [core.MaxLimits]core.LimitResult
	var nb [core.MaxLimits]string
	names := nb[:0]
	for _, l := range res.AppendLimits(buf[:0]) {
		if !l.Allowed {
			names = append(names, l.Name)
		}
	}
	if res.RetryAfter == core.Never {
		tooLarge.Write(w, names, false)
		return
	}
	tooMany.Write(w, names, false)
}
