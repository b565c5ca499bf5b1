package login

import (
	"net/http"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/internal/problem"
	"github.com/floodgate-go/floodgate/internal/seconds"
)

// throttled is the problem of every throttled answer: fixed, so that it
// tells nothing about which key throttled or whether the account exists.
var throttled = problem.Prepare(problem.Details{Type: problem.QuotaExceeded, Title: "Too Many Requests",
	Status: http.StatusTooManyRequests, Detail: "too many failed login attempts; retry later"})

// WriteThrottled writes the answer to a throttled attempt: 429 with a fixed
// RFC 9457 problem body, Retry-After in whole seconds (rounded up), and
// Cache-Control: no-store. Every throttled answer of a guard is built here,
// whichever key throttled and whatever the username.
func WriteThrottled(w http.ResponseWriter, retryAfter time.Duration) {
	w.Header()["Retry-After"] = []string{strconv.FormatInt(seconds.Positive(retryAfter), 10)}
	throttled.Write(w, nil, true)
}

// writeError answers a request the guard cannot decide: a body it cannot
// read (413, 415, 400) or a store or key failure (503).
func writeError(w http.ResponseWriter, status int, detail string) {
	if status == http.StatusServiceUnavailable {
		w.Header()["Retry-After"] = []string{"1"}
	}
	problem.Write(w, &problem.Details{Title: http.StatusText(status), Status: status, Detail: detail}, true)
}
