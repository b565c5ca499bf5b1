package login

import (
	"net/http"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/problem"
	"github.com/floodgate-go/floodgate/internal/seconds"
	"github.com/floodgate-go/floodgate/middleware"
)

// throttled is the problem of every throttled answer: fixed, so that it
// tells nothing about which key throttled or whether the account exists.
var throttled = problem.Prepare(problem.Details{Type: problem.QuotaExceeded, Title: "Too Many Requests",
	Status: http.StatusTooManyRequests, Detail: "too many failed login attempts; retry later"})

// WriteThrottled writes the answer to a throttled attempt: 429 with a fixed
// RFC 9457 problem body, Retry-After in whole seconds (rounded up), and
// Cache-Control: no-store. Every throttled answer of a guard is built here,
// whichever key throttled and whatever the username. Retry-After is no
// shorter than the wait the rate-limit fields already on the response
// tell of (headers.Wait): a rate-limit middleware in front of the guard
// may have given the attempt its last unit.
func WriteThrottled(w http.ResponseWriter, retryAfter time.Duration) {
	setRetryAfter(w.Header(), seconds.Positive(retryAfter))
	throttled.Write(w, nil, true)
}

// writeThrottled is WriteThrottled for the throttled attempt r: its
// Retry-After is no shorter than the wait of the rate limits r passed
// before (middleware.HeldWaitFor), which is the wait for the next
// admission of a limit that gave r its last unit, not the reset its
// fields tell of, and none for one whose CountIf gives it back for a 429.
func writeThrottled(w http.ResponseWriter, r *http.Request, retryAfter time.Duration) {
	h := w.Header()
	retry(h, max(seconds.Positive(retryAfter), middleware.HeldWait(r, h, http.StatusTooManyRequests)))
	throttled.Write(w, nil, true)
}

// setRetryAfter sets Retry-After to s seconds, or to the longer wait the
// rate-limit fields of h tell of.
func setRetryAfter(h http.Header, s int64) { retry(h, max(s, headers.Wait(h))) }

// retry sets Retry-After to s seconds, and the resets of the rate-limit
// fields of h that have nothing left to it (headers.Settle): those of the
// limits the attempt passed before, written when they admitted it, tell
// when they are whole again.
func retry(h http.Header, s int64) {
	h["Retry-After"] = []string{strconv.FormatInt(s, 10)}
	headers.Settle(h, s, time.Now())
}

// writeError answers r, a request the guard cannot decide: a body it
// cannot read (413, 415, 400) or a store or key failure (503, its
// Retry-After no shorter than the wait of the rate limits r passed
// before, as a throttled attempt's: middleware.HeldWaitFor).
func writeError(w http.ResponseWriter, r *http.Request, status int, detail string) {
	if h := w.Header(); status == http.StatusServiceUnavailable {
		retry(h, max(1, middleware.HeldWait(r, h, status)))
	}
	problem.Write(w, &problem.Details{Title: http.StatusText(status), Status: status, Detail: detail}, true)
}
