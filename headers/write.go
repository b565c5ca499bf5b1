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
	r *core.Result
	// ls is the limits of a Result of several; for one, the Result's own
	// fields are its limit's.
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

// pending is the fields of one Write before they are set: each field's
// position in Writer.names and its value: a text pre-rendered for its
// policy, or the rendered bytes from the previous field's end up to its
// own. (The bytes are kept apart: what flows into the header map from
// here is the fixed texts, and the stack buffer must not follow them.)
type pending struct {
	n     int
	field [numFields]uint8
	ends  [numFields]int
	fixed [numFields]string
}

// add adds the field of position i, whose value is fixed or, if fixed is
// "", the bytes rendered since the previous field, up to end.
func (f *pending) add(i, end int, fixed string) {
	f.field[f.n], f.ends[f.n], f.fixed[f.n] = uint8(i), end, fixed
	f.n++
}

// addInt appends v to b as the field of position i; sp, when not nil, is
// where v's text is kept, to be copied instead of rendered again.
func (f *pending) addInt(b []byte, i int, v int64, sp *span) []byte {
	b = appendSame(b, v, sp != nil, sp)
	f.add(i, len(b), "")
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
	d := decision{r: r}
	switch n := r.NumLimits(); {
	case n == 0:
		return
	case n > 1:
		var all [core.MaxLimits]core.LimitResult
		d.ls = r.AppendLimits(all[:0])
	}
	d.pr = w.policies.get(r, w.draft)
	d.judge()
	if d.ls == nil && !withPK && w.draft == DraftIETF11 && len(d.pr.rateHead[0]) <= oneHead {
		w.writeOne(h, &d)
		return
	}
	var pk [pkLen]byte
	if withPK {
		w.pk.encode(&pk, key)
		d.pk = &pk
	}
	w.writeAll(h, &d)
}

// writeAll is write for any Result and Writer, d judged (and its partition
// key set, if any).
func (w *Writer) writeAll(h http.Header, d *decision) {
	r := d.r
	var f pending
	var stack [stackBuf]byte
	b := stack[:0]
	on := w.on
	if on&RetryAfter != 0 && d.finite {
		b = f.addInt(b, iRetryAfter, seconds.Positive(r.RetryAfter), nil)
	}
	if on&XRateLimitLimit != 0 {
		b = d.addLimit(b, &f, iXLimit)
	}
	if on&XRateLimitRemaining != 0 {
		b = f.addInt(b, iXRemaining, d.remaining, &d.remText)
	}
	if on&XRateLimitReset != 0 {
		b = f.addInt(b, iXReset, d.resetEpoch(), nil)
	}
	if on&RateLimitPolicy != 0 {
		if d.pk != nil {
			b = appendPolicy11(b, d.pr, d.pk)
			f.add(iPolicy, len(b), "")
		} else {
			f.add(iPolicy, len(b), d.pr.policy)
		}
	}
	if on&RateLimit != 0 {
		if w.draft == DraftIETF11 {
			b = d.appendRateLimit11(b)
		} else {
			b = d.appendRateLimit7(b)
		}
		f.add(iRateLimit, len(b), "")
	}
	if on&RateLimitLimit != 0 {
		b = d.addLimit(b, &f, iLimit)
	}
	if on&RateLimitRemaining != 0 {
		b = f.addInt(b, iRemaining, d.remaining, &d.remText)
	}
	if on&RateLimitReset != 0 {
		b = f.addInt(b, iReset, d.reset, &d.resetText)
	}
	f.set(h, w, b)
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

// set sets the fields in h, their values cut from rendered, in one
// allocation.
func (f *pending) set(h http.Header, w *Writer, rendered []byte) {
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
		vals.Set(h, i, w.names[f.field[i]], v)
	}
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

// addLimit adds the field of position i, the binding limit's quota: its
// pre-rendered text when it is one of the policy's quotas.
func (d *decision) addLimit(b []byte, f *pending, i int) []byte {
	if t := d.pr.limitText(d.r.Quota); t != "" {
		f.add(i, len(b), t)
		return b
	}
	return f.addInt(b, i, d.r.Quota, nil)
}

// appendRateLimit11 appends the draft 11 RateLimit list: one "name";r=R;t=T
// item per limit. A limit that denied the request has r=0 and, unless it can
// never pass, t is its wait until it would pass: no later than Retry-After,
// as the draft asks.
func (d *decision) appendRateLimit11(b []byte) []byte {
	for i := range d.pr.n {
		allowed, rem, reset, retry := d.r.Allowed, d.r.Remaining, d.r.ResetAfter, d.r.RetryAfter
		if d.ls != nil {
			l := &d.ls[i]
			allowed, rem, reset, retry = l.Allowed, l.Remaining, l.ResetAfter, l.RetryAfter
		}
		if i > 0 {
			b = append(b, ", "...)
		}
		t := seconds.Ceil(reset)
		if !allowed {
			rem = 0
			if retry != core.Never {
				t = seconds.Positive(retry)
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
