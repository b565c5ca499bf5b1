package headers

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/internal/seconds"
)

// Settle makes the rate-limit fields of h, as a Writer of the default
// names writes them (any draft), agree with the Retry-After of a refusal
// that waits wait seconds from at: the reset of each binding limit with
// nothing remaining (X-RateLimit-Reset, an instant; draft 6
// RateLimit-Reset; the reset of the draft 7 RateLimit dictionary) is set
// to it, and the wait of each item of a draft 11 RateLimit list with
// nothing remaining (r=0) is made no later than it. A middleware or handler refusing a request on grounds of its own
// (an outage, no concurrency slot free, a login throttled) answers with a
// wait no shorter than that of the limits the request passed before
// (Wait, middleware.HeldWait), whose fields, written when they admitted
// it, tell when they are whole again: a client obeying them rather than
// Retry-After, as many do on a remaining of 0, waited up to ten times
// longer (the reset of a GCRA of 1,000 a day against its next
// admission), or less than Retry-After. wait must be no shorter than the
// wait of those limits; Settle does nothing for a wait below 1. An at not
// after the Unix epoch (the zero Time, the At of a Result no
// core.Limiter made) is no instant: the wait is from the system clock's.
func Settle(h http.Header, wait int64, at time.Time) {
	if len(h) == 0 || wait < 1 {
		return
	}
	if at.Unix() <= 0 {
		at = time.Now() // as HeldWait reads no instant from it
	}
	zero := func(i int) bool {
		v := h[canonicalNames[i]]
		return len(v) == 1 && v[0] == "0"
	}
	set := func(i int, n int64) {
		if v := h[canonicalNames[i]]; len(v) == 1 {
			if old, ok := parseInt(v[0]); ok && old != n {
				h[canonicalNames[i]] = []string{strconv.FormatInt(n, 10)}
			}
		}
	}
	if zero(iXRemaining) {
		set(iXReset, seconds.EpochCeil(at.UnixNano(), time.Duration(min(wait, maxWait))*time.Second))
	}
	if zero(iRemaining) {
		set(iReset, wait)
	}
	if v := h[canonicalNames[iRateLimit]]; len(v) == 1 && validList(v[0], &rate11Shape) {
		if c := cap11(v[0], wait); c != v[0] {
			h[canonicalNames[iRateLimit]] = []string{c}
		}
	}
	if v := h[canonicalNames[iRateLimit]]; len(v) == 1 && validDict7(v[0]) {
		if d := dict7(v[0]); d.remaining == 0 && d.reset != wait {
			h[canonicalNames[iRateLimit]] = []string{withReset7(v[0], wait)}
		}
	}
}

// withReset7 returns the draft 7 RateLimit dictionary v, valid, its reset
// (its last member, as Write writes it and validDict7 requires) wait.
func withReset7(v string, wait int64) string {
	return v[:strings.LastIndex(v, "reset=")] + "reset=" + strconv.FormatInt(wait, 10)
}

// cap11 returns the draft 11 RateLimit list v, valid, its items with
// nothing remaining (r=0) waiting no longer than wait seconds (t): a
// refusal's Retry-After, no shorter than the wait of every limit (a
// limit that gave the request its last unit told its reset, when it is
// whole again, which may be far later than when it passes).
func cap11(v string, wait int64) string {
	items := split11(v, &rate11Shape)
	changed := false
	for i, it := range items {
		params := strings.Split(it.text[len(it.name):], ";")
		if t := tupleOfParams(params, "r", "t"); !t.ok || t.remaining != 0 || t.reset <= wait {
			continue
		}
		for j, p := range params {
			if strings.HasPrefix(p, "t=") {
				params[j] = "t=" + strconv.FormatInt(wait, 10)
			}
		}
		items[i].text, changed = it.name+strings.Join(params, ";"), true
	}
	if !changed {
		return v
	}
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.text)
	}
	return b.String()
}
