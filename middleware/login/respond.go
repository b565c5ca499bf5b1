package login

import (
	"net/http"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/middleware"
)

// throttledBody is the body of every throttled answer: fixed, so that it
// tells nothing about which key throttled or whether the account exists.
const throttledBody = `{"type":"` + middleware.ProblemType + `","title":"Too Many Requests","status":429,` +
	`"detail":"too many failed login attempts; retry later"}` + "\n"

// WriteThrottled writes the answer to a throttled attempt: 429 with a fixed
// RFC 9457 problem body, Retry-After in whole seconds (rounded up), and
// Cache-Control: no-store. Every throttled answer of a guard is built here,
// whichever key throttled and whatever the username.
func WriteThrottled(w http.ResponseWriter, retryAfter time.Duration) {
	h := w.Header()
	h["Retry-After"] = []string{retryAfterSeconds(retryAfter)}
	writeProblem(w, http.StatusTooManyRequests, throttledBody)
}

// writeError answers a request the guard cannot decide: a body it cannot
// read (413, 415, 400) or a store or key failure (503).
func writeError(w http.ResponseWriter, status int, detail string) {
	body := `{"title":"` + http.StatusText(status) + `","status":` + strconv.Itoa(status) +
		`,"detail":"` + detail + `"}` + "\n"
	if status == http.StatusServiceUnavailable {
		w.Header()["Retry-After"] = []string{"1"}
	}
	writeProblem(w, status, body)
}

func writeProblem(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h["Content-Type"] = []string{"application/problem+json"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	h["X-Content-Type-Options"] = []string{"nosniff"}
	h["Cache-Control"] = []string{"no-store"}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
