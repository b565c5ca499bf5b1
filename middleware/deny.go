package middleware

import (
	"net/http"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// deny answers a denied request: the rate-limit headers, Retry-After, and
// the answer of Options.Denied or the default one. Every 429 it writes, or
// Options.Denied writes, carries a Retry-After of at least one second,
// whatever the Limiter's Result or the header Writer's options say.
func (m *Middleware) deny(w http.ResponseWriter, r *http.Request, res *core.Result) {
	h := w.Header()
	m.hdr.Write(h, res)
	if res.RetryAfter != core.Never {
		// A custom Limiter may deny without limits in its Result (the
		// header Writer then writes nothing) or with a RetryAfter of 0 or
		// less; the Writer may omit or rename Retry-After.
		if v := h["Retry-After"]; len(v) != 1 || !isSeconds(v[0], retrySeconds(res.RetryAfter)) {
			h["Retry-After"] = []string{retryAfterValue(res.RetryAfter)}
		}
	}
	if m.opts.Denied == nil {
		writeDenied(w, res)
		return
	}
	if res.RetryAfter == core.Never {
		// No wait lets this request pass, so there is no honest
		// Retry-After; should Denied answer 429 all the same, it still gets
		// one: the time until the limit is replenished.
		w = &retryOn429{ResponseWriter: w, value: retryAfterValue(res.ResetAfter)}
	}
	m.opts.Denied(w, r, *res)
}

// retrySeconds returns d in whole seconds, rounded up, at least 1: a
// Retry-After of 0 would invite an immediate retry that has just been
// refused.
func retrySeconds(d time.Duration) int64 {
	if d <= time.Second {
		return 1
	}
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return s
}

// retryAfterValue returns the Retry-After value of a wait of d.
func retryAfterValue(d time.Duration) string { return strconv.FormatInt(retrySeconds(d), 10) }

// isSeconds reports whether v is the decimal integer n: the header Writer
// has already written the right Retry-After, so it need not be replaced.
func isSeconds(v string, n int64) bool {
	got, err := strconv.ParseInt(v, 10, 64)
	return err == nil && got == n
}

// retryOn429 adds Retry-After to a 429 answer that has none.
type retryOn429 struct {
	http.ResponseWriter
	value string
	wrote bool
}

func (w *retryOn429) WriteHeader(code int) {
	if !w.wrote && code == http.StatusTooManyRequests {
		if h := w.Header(); len(h["Retry-After"]) == 0 {
			h["Retry-After"] = []string{w.value}
		}
	}
	if code >= 200 {
		w.wrote = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *retryOn429) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *retryOn429) Unwrap() http.ResponseWriter { return w.ResponseWriter }
