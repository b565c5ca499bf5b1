package middleware

import (
	"net/http"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/seconds"
)

// deny answers a denied request, decided for key: the rate-limit headers,
// Retry-After, and the answer of Options.Denied or the default one. Every
// 429 it writes, or Options.Denied writes, carries a Retry-After of at
// least one second, whatever the Limiter's Result or the header Writer's
// options say.
func (m *Middleware) deny(w http.ResponseWriter, r *http.Request, res *core.Result, key string) {
	h := w.Header()
	var held int64
	if res.RetryAfter != core.Never {
		// Read once, before the fields are written, and given to
		// CombineHeld, which lengthens them to it; and written here too,
		// as the Writer may omit or rename Retry-After. It is the wait
		// for the next admission of the middlewares r passed before,
		// when they tell it (see stacked).
		held = heldWait(r, m.hdr, m.names, h, res.At(), refusalStatus(m.opts.Denied != nil))
	}
	m.hdr.CombineHeld(h, res, key, held)
	if res.RetryAfter != core.Never {
		ensureRetryAfter(h, max(seconds.Positive(res.RetryAfter), held))
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

// ensureRetryAfter makes sure h's Retry-After is at least want seconds: a
// custom Limiter may deny without limits in its Result (the header Writer
// then writes nothing) or with a RetryAfter of 0 or less, and the Writer
// may omit or rename Retry-After. What the Writer wrote is kept when it
// is right, and so is a longer wait in whole seconds: the Writer's
// Combine waits for a limiter this response passed before, which took its
// last unit.
func ensureRetryAfter(h http.Header, want int64) {
	if v := h["Retry-After"]; len(v) == 1 {
		if n, err := strconv.ParseInt(v[0], 10, 64); err == nil && n >= want && v[0][0] != '+' {
			return
		}
	}
	var buf [20]byte
	h["Retry-After"] = []string{string(strconv.AppendInt(buf[:0], want, 10))}
}

// heldRetry returns v, a Retry-After in whole seconds of an answer the
// middleware gives r on grounds of its own (an outage, no slot free),
// answered status (0: not known), or the longer wait of the limits r
// passed before, which the rate-limit fields already in h tell of
// (heldWait): one may have given it its last unit, and a retry sooner
// would be refused by it. The resets of those limits' fields that have
// nothing left are made to tell it too (headers.Settle).
func heldRetry(r *http.Request, h http.Header, v string, status int) string {
	now := time.Now()
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return v
	}
	if s := heldWait(r, nil, nil, h, now, status); s > n {
		n, v = s, strconv.FormatInt(s, 10)
	}
	headers.Settle(h, n, now)
	return v
}

// retryAfterValue returns the Retry-After value of a wait of d: whole
// seconds, rounded up, at least 1.
func retryAfterValue(d time.Duration) string { return strconv.FormatInt(seconds.Positive(d), 10) }

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

// refusalStatus is the status of a rate-limit refusal: the default 429,
// or 0 (not known) when custom, an Options.Denied of the caller's, answers
// it.
func refusalStatus(custom bool) int {
	if custom {
		return 0
	}
	return http.StatusTooManyRequests
}
