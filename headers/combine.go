package headers

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/seconds"
)

// Combine is [Writer.Write] for a response that may already carry the
// fields of another decision: a request that passes two limiters, such as
// a global middleware around a route's, each writing its fields. Write
// would replace the first decision's fields with the second's, and the
// client would be told of one limit only: the remaining of a route's
// generous limit while the global one has none left. Combine writes what
// both say:
//
//   - RateLimit-Policy (and, in draft 11, RateLimit) lists the items of
//     both, those held first (in draft 11, one item per name: of two
//     limits of one name, the stricter decision's items; in drafts 6 and
//     7, one item per quota, as draft 7 asks: the one of the longest
//     window);
//   - X-RateLimit-Limit, -Remaining and -Reset (and the draft 6 and 7
//     fields of the binding limit) are those of the decision with the
//     least remaining, of the later reset on a tie;
//   - Retry-After, on a denial, is the longest wait: r's and those the
//     held fields tell of ([Writer.HeldWait]: a Retry-After, the reset of
//     a limit with nothing remaining, under the default names or w's,
//     of any draft), as a request the first limiter admitted may have
//     taken its last unit, and the retry must wait for that limit too;
//     the binding limit's resets (X-RateLimit-Reset, draft 6
//     RateLimit-Reset, the draft 7 reset) are no sooner.
//
// A held field whose value does not parse as what w's draft writes is
// replaced, as Write does; but a draft 11 Writer lists the binding limit
// of a draft 6 or 7 Writer of the default names as an item of its own,
// named "%held" (those drafts name no limit; no limit's name is written
// so: a '%' in one is written %25), so that its lists name the limit that
// binds. Fields another Writer wrote under names of its own,
// not w's, are neither read nor replaced: give stacked middlewares
// Writers of the same names. Without any of its fields in h, Combine is
// Write.
func (w *Writer) Combine(h http.Header, r *core.Result) { w.combineKey(h, r, "", false, -1) }

// CombineKey is [Writer.Combine] with a partition key, as
// [Writer.WriteKey].
func (w *Writer) CombineKey(h http.Header, r *core.Result, key string) {
	w.combineKey(h, r, key, w != nil && w.pk != nil, -1)
}

// CombineHeld is [Writer.CombineKey] told the held wait: on a denial, the
// longest wait, in whole seconds from r.At(), that the decisions behind
// the fields h holds impose on a retry, in place of the one
// [Writer.HeldWait] reads from those fields. A caller that knows those
// decisions gives it: the fields of a limit an earlier decision took the
// last unit of tell when it is whole again (its reset), which may be far
// later than when it admits one more request. held must be no shorter
// than the true wait; a negative held is read from h, as CombineKey does.
func (w *Writer) CombineHeld(h http.Header, r *core.Result, key string, held int64) {
	w.combineKey(h, r, key, w != nil && w.pk != nil, held)
}

// combineKey is CombineKey, or CombineHeld when held is not negative.
func (w *Writer) combineKey(h http.Header, r *core.Result, key string, withPK bool, held int64) {
	if w == nil || r == nil || h == nil || r.NumLimits() == 0 {
		return
	}
	old, any := w.held(h)
	var wait int64
	if !r.Allowed && r.RetryAfter != core.Never {
		if wait = held; held < 0 {
			wait = w.HeldWait(h, r.At())
		}
	}
	w.write(h, r, key, withPK)
	if any {
		w.combine(h, &old)
	}
	if own := seconds.Positive(r.RetryAfter); !r.Allowed && r.RetryAfter != core.Never && (any || wait > own) {
		// (Without fields held, write's tell of own, and wait is 0.)
		w.settle(h, max(wait, own), r.At())
	}
}

// maxWait is the longest wait, in seconds, this package writes: that of
// the longest time.Duration. A held wait longer is read as this one.
const maxWait = int64(math.MaxInt64 / time.Second)

// HeldWait returns the longest wait, in whole seconds from at, that the
// rate-limit fields h holds tell of, read under w's names and under the
// default names, whichever draft wrote them: Retry-After and, of a limit
// with nothing remaining, its reset. The instants among them (an
// HTTP-date Retry-After, X-RateLimit-Reset) are read from at, unless at
// is not after the Unix epoch, as a Result no core.Limiter made has it.
// A nil w reads the default names. [Writer.Combine] waits for it on a
// denial; a caller that writes Retry-After itself, as w may omit or
// rename it, reads it before Combine.
func (w *Writer) HeldWait(h http.Header, at time.Time) int64 {
	if len(h) == 0 {
		return 0
	}
	var old [numFields]string
	for i, name := range canonicalNames {
		old[i] = strings.Join(h[name], ", ")
	}
	wait := heldWait(&old, at)
	if w != nil && w.names != canonicalNames {
		for i, name := range w.names {
			old[i] = ""
			if name != "" {
				old[i] = strings.Join(h[name], ", ")
			}
		}
		wait = max(wait, heldWait(&old, at))
	}
	return min(wait, maxWait)
}

// settle makes the fields of a denial h holds tell of a wait of wait
// seconds from at, when the request passes: Retry-After and the binding
// limit's reset (X-RateLimit-Reset, an instant; draft 6 RateLimit-Reset;
// the draft 7 reset), which a client may obey instead; and no draft 11
// item with nothing remaining tells a longer one (cap11). A binding limit's
// fields combine restored from an earlier decision (a limit it took the
// last unit of) tell of that limit's reset, which may be later than its
// next admission when the caller knows it (see CombineHeld).
func (w *Writer) settle(h http.Header, wait int64, at time.Time) {
	if n, ok := parseInt(w.value(h, iRetryAfter)); ok && n != wait {
		w.set(h, iRetryAfter, strconv.FormatInt(wait, 10))
	}
	epoch := seconds.EpochCeil(at.UnixNano(), time.Duration(wait)*time.Second)
	if n, ok := parseInt(w.value(h, iXReset)); ok && n != epoch {
		w.set(h, iXReset, strconv.FormatInt(epoch, 10))
	}
	if n, ok := parseInt(w.value(h, iReset)); ok && n != wait {
		w.set(h, iReset, strconv.FormatInt(wait, 10))
	}
	if v := w.value(h, iRateLimit); w.draft == DraftIETF11 && validList(v, &rate11Shape) {
		if c := cap11(v, wait); c != v {
			w.set(h, iRateLimit, c)
		}
	}
	if v := w.value(h, iRateLimit); w.draft == DraftIETF7 && validDict7(v) && dict7(v).reset != wait {
		w.set(h, iRateLimit, withReset7(v, wait))
	}
}

// held returns the values h holds of the fields w writes, each field's
// lines joined as one list, and whether it holds any that combine merges
// with: a list, or the remaining of a binding limit's fields (without
// it, their limit and reset are not read). Those are probed first, so
// that a response holding none (the first middleware's) costs a few
// lookups, not one per field.
func (w *Writer) held(h http.Header) (old [numFields]string, any bool) {
	if len(h) == 0 {
		return old, false
	}
	for _, i := range [...]int{iPolicy, iRateLimit, iXRemaining, iRemaining} {
		if name := w.names[i]; name != "" && len(h[name]) > 0 {
			any = true
			break
		}
	}
	if w.draft == DraftIETF11 && len(h[canonicalNames[iRemaining]]) > 0 {
		any = true // a draft 6 binding limit's, listed (see held67)
	}
	if !any {
		return old, false
	}
	for i, name := range w.names {
		if name == "" {
			continue
		}
		switch v := h[name]; len(v) {
		case 0:
		case 1:
			old[i], any = v[0], true
		default:
			old[i], any = strings.Join(v, ", "), true
		}
	}
	return old, any
}

// combine merges old, the values h held before r's were written, into h.
func (w *Writer) combine(h http.Header, old *[numFields]string) {
	// The lists: the items held, then r's.
	if w.draft == DraftIETF11 {
		w.combine11(h, old)
	} else if o, n := old[iPolicy], w.value(h, iPolicy); o != "" && n != "" && validList(o, &policy67Shape) {
		w.set(h, iPolicy, policy67(o+", "+n))
	}
	// The binding limit's fields: the stricter of the two decisions.
	xOld := tupleOf(old, iXRemaining, iXReset)
	if xOld.ok && ints(old, iXLimit) && xOld.stricter(tupleOf(w.current(h), iXRemaining, iXReset)) {
		w.restore(h, old, iXLimit, iXRemaining, iXReset)
	}
	d6Old := tupleOf(old, iRemaining, iReset)
	if d6Old.ok && ints(old, iLimit) && d6Old.stricter(tupleOf(w.current(h), iRemaining, iReset)) {
		w.restore(h, old, iLimit, iRemaining, iReset)
	}
	if w.draft == DraftIETF7 {
		if o := dict7(old[iRateLimit]); o.ok && validDict7(old[iRateLimit]) && o.stricter(dict7(w.value(h, iRateLimit))) {
			w.restore(h, old, iRateLimit)
		}
	}
}

// combine11 merges the held draft 11 lists of old, those valid, into h,
// one item per name (merge11).
func (w *Writer) combine11(h http.Header, old *[numFields]string) {
	oPol, oRate := old[iPolicy], old[iRateLimit]
	hPol, hRate := held67(h, old)
	if !validList(oPol, &policy11Shape) {
		oPol = ""
	}
	if !validList(oRate, &rate11Shape) {
		oRate = ""
	}
	if hPol != "" || hRate != "" {
		// One item per name: a draft 11 Writer combining before this one
		// listed it already (its fields stay in h), maybe with the
		// window its policy item gave it, which h no longer holds.
		oPol, oRate = merge11(oPol, oRate, hPol, hRate)
	}
	if oPol == "" && oRate == "" {
		return
	}
	nPol, nRate := w.value(h, iPolicy), w.value(h, iRateLimit)
	pol, rate := merge11(oPol, oRate, nPol, nRate)
	if nPol != "" && oPol != "" {
		w.set(h, iPolicy, pol)
	}
	if nRate != "" && oRate != "" {
		w.set(h, iRateLimit, rate)
	}
}

// heldName is the name of the draft 11 items that list a binding limit
// a Writer of draft 6 or 7 left in a response: those drafts name none. It
// is no limit's name as written (appendSFString writes a '%' as %25), so
// that no limit's items merge with it (see merge11).
const heldName = `"%held"`

// held67 returns the draft 11 RateLimit-Policy and RateLimit items of the
// binding limit whose fields a Writer of draft 6 or 7, of the default
// names, left in h (old holds the values of the fields of a draft 11
// Writer): the draft 7 RateLimit dictionary, or draft 6's RateLimit-Limit,
// -Remaining and -Reset, its window read from the RateLimit-Policy item of
// its quota. A draft 11 Writer combining lists it as an item of its own
// (heldName), lest a client reading its lists miss the limit that binds:
// a global limit spent, written in draft 6 around a route's written in
// draft 11. "" and "" when there is none, or it does not read as those
// drafts write it.
func held67(h http.Header, old *[numFields]string) (pol, rate string) {
	var q, rem, reset int64
	if v := old[iRateLimit]; validDict7(v) {
		t := dict7(v)
		lim, _, _ := strings.Cut(strings.TrimLeft(v, " \t"), ",")
		q, _ = parseInt(strings.TrimPrefix(lim, "limit="))
		rem, reset = t.remaining, t.reset
	} else {
		var vals [numFields]string
		for _, i := range [...]int{iLimit, iRemaining, iReset} {
			if v := h[canonicalNames[i]]; len(v) == 1 {
				vals[i] = v[0]
			}
		}
		t := tupleOf(&vals, iRemaining, iReset)
		var ok bool
		if q, ok = parseInt(vals[iLimit]); !ok || !t.ok {
			return "", ""
		}
		rem, reset = t.remaining, t.reset
	}
	pol = heldName + ";q=" + strconv.FormatInt(q, 10)
	if win := window67(old[iPolicy], q); win > 0 {
		pol += ";w=" + strconv.FormatInt(win, 10)
	}
	return pol, heldName + ";r=" + strconv.FormatInt(rem, 10) + ";t=" + strconv.FormatInt(reset, 10)
}

// window67 returns the window of quota q in the drafts 6 and 7
// RateLimit-Policy list v, or 0.
func window67(v string, q int64) int64 {
	if !validList(v, &policy67Shape) {
		return 0
	}
	for _, m := range strings.Split(v, ",") {
		qs, ws, _ := strings.Cut(strings.TrimSpace(m), ";w=")
		if n, ok := parseInt(qs); ok && n == q {
			win, _ := parseInt(ws)
			return win
		}
	}
	return 0
}

// policy67 returns the drafts 6 and 7 RateLimit-Policy list v with one
// item per quota, as draft 7 asks: of items sharing a quota, the one with
// the longest window (the strictest), where the first of them stood. A
// list it cannot read is returned as it is.
func policy67(v string) string {
	type item struct{ q, w int64 }
	var items []item
	at := map[int64]int{} // a quota's position in items
	for _, m := range strings.Split(v, ",") {
		qs, ws, hasW := strings.Cut(strings.TrimSpace(m), ";w=")
		q, ok := parseInt(qs)
		var win int64
		if hasW {
			win, ok = parseInt(ws)
		}
		if !ok {
			return v
		}
		if j, seen := at[q]; seen {
			items[j].w = max(items[j].w, win)
			continue
		}
		at[q] = len(items)
		items = append(items, item{q, win})
	}
	b := make([]byte, 0, len(v))
	for j, it := range items {
		if j > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, it.q, 10)
		if it.w > 0 {
			b = append(b, ";w="...)
			b = strconv.AppendInt(b, it.w, 10)
		}
	}
	return string(b)
}

// Wait returns the longest wait, in whole seconds, that the rate-limit
// fields of h tell a request of, as a Writer of the default names writes
// them (any draft): Retry-After (delay-seconds or an HTTP-date) and, of a
// limit with nothing remaining, its reset (a draft 11 RateLimit item, the draft 7 RateLimit
// dictionary, draft 6's RateLimit-Remaining and -Reset, and
// X-RateLimit-Reset, an instant, read against the system clock, the
// limiters' default); 0 when they tell of none. A middleware refusing a
// request on grounds of its own (no concurrency slot free) answers with
// at least this wait: a limiter the request passed before may have given
// it its last unit, and a retry sooner would be refused by it. It is
// [Writer.HeldWait] of a nil Writer at time.Now().
func Wait(h http.Header) int64 {
	if len(h) == 0 {
		return 0
	}
	return (*Writer)(nil).HeldWait(h, time.Now())
}

// canonicalNames are the default names in canonical form, as h holds them.
var canonicalNames = func() (c [numFields]string) {
	for i, n := range defaultNames {
		c[i] = http.CanonicalHeaderKey(n)
	}
	return c
}()

// heldWait returns the longest wait the values held tell of, in seconds
// from at: their Retry-After (delay-seconds or an HTTP-date), and the
// reset of a limit with nothing remaining.
func heldWait(old *[numFields]string, at time.Time) int64 {
	wait := relativeWait(old)
	if at.Unix() <= 0 {
		return wait // no instant to read the instants from
	}
	if x := tupleOf(old, iXRemaining, iXReset); x.ok && x.remaining == 0 {
		// An epoch: the seconds from at to it, rounded up.
		wait = max(wait, seconds.Ceil(time.Unix(x.reset, 0).Sub(at)))
	}
	if ra := old[iRetryAfter]; len(ra) > 15 && len(ra) < 64 {
		// An HTTP-date (RFC 9110), not delay-seconds.
		if due, err := http.ParseTime(ra); err == nil {
			wait = max(wait, seconds.Ceil(due.Sub(at)))
		}
	}
	return wait
}

// relativeWait is heldWait of the fields that tell a wait from their
// decision (all but X-RateLimit-Reset, an instant).
func relativeWait(old *[numFields]string) int64 {
	wait, _ := parseInt(old[iRetryAfter])
	if d := tupleOf(old, iRemaining, iReset); d.ok && d.remaining == 0 {
		wait = max(wait, d.reset)
	}
	if d := dict7(old[iRateLimit]); d.ok && d.remaining == 0 {
		wait = max(wait, d.reset)
	}
	for _, it := range items11(old[iRateLimit]) {
		if it.remaining == 0 {
			wait = max(wait, it.reset)
		}
	}
	return wait
}

// value returns the single value h holds of the field of position i, or "".
func (w *Writer) value(h http.Header, i int) string {
	if name := w.names[i]; name != "" {
		if v := h[name]; len(v) == 1 {
			return v[0]
		}
	}
	return ""
}

// current returns the values h holds of w's fields, one each.
func (w *Writer) current(h http.Header) *[numFields]string {
	var cur [numFields]string
	for i := range w.names {
		cur[i] = w.value(h, i)
	}
	return &cur
}

func (w *Writer) set(h http.Header, i int, v string) { h[w.names[i]] = []string{v} }

// restore sets the fields of positions is back to their values in old,
// those that had one.
func (w *Writer) restore(h http.Header, old *[numFields]string, is ...int) {
	for _, i := range is {
		if w.names[i] != "" && old[i] != "" {
			w.set(h, i, old[i])
		}
	}
}

// tuple is the remaining and reset of a binding limit's fields.
type tuple struct {
	remaining, reset int64
	ok               bool
}

// tupleOf reads the remaining and reset at positions rem and reset of
// vals; it is not ok unless both are integers.
func tupleOf(vals *[numFields]string, rem, reset int) tuple {
	r, ok := parseInt(vals[rem])
	if !ok {
		return tuple{}
	}
	s, ok := parseInt(vals[reset])
	return tuple{remaining: r, reset: s, ok: ok}
}

// ints reports whether the values of positions is in vals are each
// absent or an integer, as this package writes them.
func ints(vals *[numFields]string, is ...int) bool {
	for _, i := range is {
		if _, ok := parseInt(vals[i]); !ok && vals[i] != "" {
			return false
		}
	}
	return true
}

// stricter reports whether t tells of less than u: less remaining, or as
// little and a later reset. A tuple that cannot be read tells of nothing.
func (t tuple) stricter(u tuple) bool {
	return t.ok && (!u.ok || t.remaining < u.remaining || t.remaining == u.remaining && t.reset > u.reset)
}

// dict7 reads a draft 7 RateLimit dictionary, "limit=L, remaining=R,
// reset=S".
func dict7(v string) tuple { return tupleOfParams(strings.Split(v, ","), "remaining", "reset") }

// tupleOfParams reads the remaining and reset of the members "k=v" of ms
// named rem and reset; the tuple is ok when both are read.
func tupleOfParams(ms []string, rem, reset string) tuple {
	var t tuple
	var okR, okS bool
	for _, m := range ms {
		k, val, _ := strings.Cut(strings.TrimSpace(m), "=")
		switch k {
		case rem:
			t.remaining, okR = parseInt(val)
		case reset:
			t.reset, okS = parseInt(val)
		}
	}
	t.ok = okR && okS
	return t
}

// items11 reads the r and t parameters of the items of a draft 11
// RateLimit list; an item it cannot read is left out.
func items11(v string) []tuple {
	var out []tuple
	for v != "" {
		v = strings.TrimLeft(v, " \t")
		if v == "" || v[0] != '"' {
			return out
		}
		end := sfStringEnd(v)
		if end < 0 {
			return out
		}
		params, rest, _ := strings.Cut(v[end:], ",")
		v = rest
		if t := tupleOfParams(strings.Split(params, ";"), "r", "t"); t.ok {
			out = append(out, t)
		}
	}
	return out
}

// sfStringEnd returns the index just past the sf-string s starts with, or
// -1 if it is not closed.
func sfStringEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// parseInt reads a non-negative decimal integer of at most 15 digits, as
// this package writes them.
func parseInt(s string) (int64, bool) {
	if s == "" || len(s) > 15 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
