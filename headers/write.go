package headers

import (
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/headerval"
	"github.com/floodgate-go/floodgate/internal/seconds"
)

// stackBuf is the size of the buffer the values of one Write are rendered
// in on the stack: enough for every field of four limits with names of a
// dozen bytes and no partition key. Longer values grow it on the heap.
const stackBuf = 512

// decision is what the fields say of a Result beyond its own fields.
type decision struct {
	r      *core.Result
	ls     []core.LimitResult
	pr     *rendered
	denied bool
	// finite is a denial that some wait will let pass: it has a
	// Retry-After.
	finite bool
	// remaining is the binding limit's remaining, 0 on a denial; reset
	// its reset in the IETF fields, which on a denial the drafts want to
	// agree with Retry-After. Each is rendered once: the fields that repeat
	// it copy its text.
	remaining, reset   int64
	remText, resetText span
	pk                 *[pkLen]byte // nil without a partition key
}

// span is where a value was rendered in a Write's bytes; the zero span is
// none.
type span struct{ start, end int }

// appendValue renders v as the field of position i of w; sp, when not
// nil, is where v's text is kept, to be copied instead of rendered again.
func (f *pending) appendValue(b []byte, w *Writer, i int, v int64, sp *span) []byte {
	b = appendSame(b, v, sp != nil, sp)
	f.add(w, i, len(b), "")
	return b
}

// appendSame appends v, a copy of the text at *sp if v is the value
// rendered there (same is v == that value), or rendered anew, and then
// remembered at *sp.
func appendSame(b []byte, v int64, same bool, sp *span) []byte {
	if same && sp.end > sp.start {
		return append(b, b[sp.start:sp.end]...)
	}
	start := len(b)
	b = appendInt(b, v)
	if same {
		*sp = span{start, len(b)}
	}
	return b
}

func (w *Writer) write(h http.Header, r *core.Result, key string, withPK bool) {
	if w == nil || r == nil || h == nil {
		return
	}
	var lbuf [core.MaxLimits]core.LimitResult
	d := decision{r: r, ls: r.AppendLimits(lbuf[:0])}
	if len(d.ls) == 0 {
		return
	}
	d.pr = w.policies.get(r.Policy(), d.ls, w.draft)
	d.judge()
	var pk [pkLen]byte
	if withPK {
		w.pk.encode(&pk, key)
		d.pk = &pk
	}
	var f pending
	var stack [stackBuf]byte
	b := w.appendRetryAfter(stack[:0], &f, &d)
	b = w.appendXRateLimit(b, &f, &d)
	b = w.appendIETF(b, &f, &d)
	f.set(h, b)
}

// judge sets the decision's figures from its Result.
func (d *decision) judge() {
	r := d.r
	d.denied = !r.Allowed
	d.finite = d.denied && r.RetryAfter != core.Never
	if !d.denied {
		d.remaining = r.Remaining
	}
	if d.finite {
		d.reset = seconds.Positive(r.RetryAfter)
	} else {
		d.reset = seconds.Ceil(r.ResetAfter)
	}
}

// pending is the fields of one Write before they are set: each field's
// name, and its value: a text pre-rendered for its policy, or the bytes of
// the rendered values up to its end.
type pending struct {
	n     int
	names [numFields]string
	fixed [numFields]string
	ends  [numFields]int
}

// add adds the field of position i of w, whose value is fixed or, if fixed
// is "", ends at end in the rendered bytes.
func (f *pending) add(w *Writer, i int, end int, fixed string) {
	f.names[f.n], f.ends[f.n], f.fixed[f.n] = w.names[i], end, fixed
	f.n++
}

// set sets the fields in h, their values cut from rendered, in one
// allocation.
func (f *pending) set(h http.Header, rendered []byte) {
	if f.n == 0 {
		return
	}
	vals := headerval.New(f.n, rendered)
	start := 0
	for i := range f.n {
		v := f.fixed[i]
		if v == "" {
			v = vals.Text(start, f.ends[i])
		}
		start = f.ends[i]
		vals.Set(h, i, f.names[i], v)
	}
}

// appendRetryAfter renders Retry-After, on a denial some wait will let
// pass.
func (w *Writer) appendRetryAfter(b []byte, f *pending, d *decision) []byte {
	if w.on&RetryAfter != 0 && d.finite {
		b = f.appendValue(b, w, iRetryAfter, seconds.Positive(d.r.RetryAfter), nil)
	}
	return b
}

// appendXRateLimit renders X-RateLimit-Limit, -Remaining and -Reset.
func (w *Writer) appendXRateLimit(b []byte, f *pending, d *decision) []byte {
	if w.on&XRateLimitLimit != 0 {
		b = d.appendLimit(b, f, w, iXLimit)
	}
	if w.on&XRateLimitRemaining != 0 {
		b = f.appendValue(b, w, iXRemaining, d.remaining, &d.remText)
	}
	if w.on&XRateLimitReset != 0 {
		b = f.appendValue(b, w, iXReset, d.resetEpoch(), nil)
	}
	return b
}

// resetEpoch is X-RateLimit-Reset: the Unix second, rounded up, at which
// the binding limit is whole again or, on a denial some wait will let
// pass, at which the request passes, as Retry-After says (GitHub's
// contract: a client refused does not retry before X-RateLimit-Reset).
func (d *decision) resetEpoch() int64 {
	after := d.r.ResetAfter
	if d.finite {
		after = max(d.r.RetryAfter, 1)
	}
	return seconds.EpochCeil(d.r.At().UnixNano(), after)
}

// appendLimit adds the field of position i, the binding limit's quota:
// its pre-rendered text when it is one of the policy's quotas.
func (d *decision) appendLimit(b []byte, f *pending, w *Writer, i int) []byte {
	if t := d.pr.limitText(d.r.Quota); t != "" {
		f.add(w, i, len(b), t)
		return b
	}
	return f.appendValue(b, w, i, d.r.Quota, nil)
}

// appendIETF renders the IETF fields of w's draft.
func (w *Writer) appendIETF(b []byte, f *pending, d *decision) []byte {
	if w.on&RateLimitPolicy != 0 {
		if d.pk != nil {
			b = appendPolicy11(b, d.pr, d.pk)
			f.add(w, iPolicy, len(b), "")
		} else {
			f.add(w, iPolicy, len(b), d.pr.policy)
		}
	}
	if w.on&RateLimit != 0 {
		if w.draft == DraftIETF11 {
			b = d.appendRateLimit11(b)
		} else {
			b = d.appendRateLimit7(b)
		}
		f.add(w, iRateLimit, len(b), "")
	}
	if w.on&RateLimitLimit != 0 {
		b = d.appendLimit(b, f, w, iLimit)
	}
	if w.on&RateLimitRemaining != 0 {
		b = f.appendValue(b, w, iRemaining, d.remaining, &d.remText)
	}
	if w.on&RateLimitReset != 0 {
		b = f.appendValue(b, w, iReset, d.reset, &d.resetText)
	}
	return b
}

// appendRateLimit11 appends the draft 11 RateLimit list: one "name";r=R;t=T
// item per limit. A limit that denied the request has r=0 and, unless it can
// never pass, t is its wait until it would pass: no later than Retry-After,
// as the draft asks.
func (d *decision) appendRateLimit11(b []byte) []byte {
	for i := range d.ls {
		l := &d.ls[i]
		if i > 0 {
			b = append(b, ", "...)
		}
		rem, t := l.Remaining, seconds.Ceil(l.ResetAfter)
		if !l.Allowed {
			rem = 0
			if l.RetryAfter != core.Never {
				t = seconds.Positive(l.RetryAfter)
			}
		}
		b = append(b, d.pr.rateHead[i]...)
		b = appendSame(b, rem, rem == d.remaining, &d.remText)
		b = append(b, ";t="...)
		b = appendSame(b, t, t == d.reset, &d.resetText)
		if d.pk != nil {
			b = appendPK(b, d.pk)
		}
	}
	return b
}

// appendRateLimit7 appends the draft 7 RateLimit dictionary of the binding
// limit.
func (d *decision) appendRateLimit7(b []byte) []byte {
	b = append(b, "limit="...)
	if t := d.pr.limitText(d.r.Quota); t != "" {
		b = append(b, t...)
	} else {
		b = appendInt(b, d.r.Quota)
	}
	b = append(b, ", remaining="...)
	b = appendSame(b, d.remaining, true, &d.remText)
	b = append(b, ", reset="...)
	return appendSame(b, d.reset, true, &d.resetText)
}
