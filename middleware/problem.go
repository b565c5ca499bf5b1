package middleware

import (
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/problem"
)

// ProblemType is the RFC 9457 problem type of a 429 answer, registered by
// draft-ietf-httpapi-ratelimit-headers.
const ProblemType = problem.QuotaExceeded

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
	d := problem.Details{Type: ProblemType, Title: "Too Many Requests", Status: http.StatusTooManyRequests,
		Detail: "the request exceeds the rate limit", Violated: names}
	if res.RetryAfter == core.Never {
		d.Title, d.Status = "Content Too Large", http.StatusRequestEntityTooLarge
		d.Detail = "the request costs more than the rate limit ever grants at once"
	}
	problem.Write(w, &d, false)
}

// writeProblem answers with status, its standard title and detail: the
// middleware's answers other than a denial.
func writeProblem(w http.ResponseWriter, status int, detail string) {
	problem.Write(w, &problem.Details{Title: http.StatusText(status), Status: status, Detail: detail}, false)
}
