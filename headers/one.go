package headers

import (
	"net/http"

	"github.com/floodgate-go/floodgate/internal/headerval"
	"github.com/floodgate-go/floodgate/internal/seconds"
)

// The bounds of writeOne: the head of its limit's RateLimit item (the
// quoted name and ";r=") takes at most oneHead bytes, and the values at
// most oneBuf: five integers of 15 digits, the head, ";t=", and the 16
// bytes appendInt may write past what it appends.
const (
	oneHead = 48
	oneBuf  = 5*15 + oneHead + len(";t=") + 16
)

// writeOne is write for a Writer of draft 11 and a Result of one limit
// (d judged) with no partition key, the usual case: the same fields and
// values as writeAll, rendered in one pass into a small buffer, each value
// kept where it was rendered rather than through pending
// (TestWriteOneAgrees compares the two on every golden Result).
func (w *Writer) writeOne(h http.Header, d *decision) {
	r, pr, on := d.r, d.pr, w.on
	var buf [oneBuf]byte
	b := buf[:0]
	// Each value is b[start:end] of its span, or the policy's own text.
	var retry, xLimit, xRemaining, xReset, rateLimit span
	limitText, k := "", 0
	if on&RetryAfter != 0 && d.finite {
		b = appendSpan(b, &retry, seconds.Positive(r.RetryAfter))
		k++
	}
	if on&XRateLimitLimit != 0 {
		if limitText = pr.limitText(r.Quota); limitText == "" {
			b = appendSpan(b, &xLimit, r.Quota)
		}
		k++
	}
	if on&RateLimit != 0 {
		// appendRateLimit11's item for the one limit, whose figures are
		// the Result's own: its r= is the binding limit's remaining,
		// which X-RateLimit-Remaining then shares.
		rateLimit.start = len(b)
		b = append(b, pr.rateHead[0]...)
		b = appendSpan(b, &xRemaining, d.remaining)
		b = append(b, ";t="...)
		b = appendInt(b, d.reset)
		rateLimit.end = len(b)
		k++
	}
	if on&XRateLimitRemaining != 0 {
		if xRemaining.end == 0 {
			b = appendSpan(b, &xRemaining, d.remaining)
		}
		k++
	}
	if on&XRateLimitReset != 0 {
		b = appendSpan(b, &xReset, d.resetEpoch())
		k++
	}
	if on&RateLimitPolicy != 0 {
		k++
	}
	if k == 0 {
		return
	}
	vals := headerval.New(k, b)
	i := 0
	set := func(field int, sp span, fixed string) {
		if fixed == "" {
			fixed = vals.Text(sp.start, sp.end)
		}
		vals.Set(h, i, w.names[field], fixed)
		i++
	}
	if retry.end > 0 {
		set(iRetryAfter, retry, "")
	}
	if on&XRateLimitLimit != 0 {
		set(iXLimit, xLimit, limitText)
	}
	if on&XRateLimitRemaining != 0 {
		set(iXRemaining, xRemaining, "")
	}
	if on&XRateLimitReset != 0 {
		set(iXReset, xReset, "")
	}
	if on&RateLimitPolicy != 0 {
		set(iPolicy, span{}, pr.policy)
	}
	if on&RateLimit != 0 {
		set(iRateLimit, rateLimit, "")
	}
}

// appendSpan appends v to b and records where in *sp.
func appendSpan(b []byte, sp *span, v int64) []byte {
	sp.start = len(b)
	b = appendInt(b, v)
	sp.end = len(b)
	return b
}
