package headers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"math/bits"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core"
)

// Draft selects the shape of the IETF rate-limit fields, after a revision of
// draft-ietf-httpapi-ratelimit-headers. The zero Draft is [DraftIETF11].
type Draft uint8

const (
	// DraftIETF11 is draft 11 (the shape of drafts 8 to 11): one item per
	// limit, named by an sf-string, in two Structured Field lists.
	//
	//	RateLimit-Policy: "burst";q=10;w=6, "daily";q=1000;w=86400
	//	RateLimit: "burst";r=9;t=1, "daily";r=999;t=87
	DraftIETF11 Draft = iota
	// DraftIETF7 is draft 7: a RateLimit dictionary for the binding limit
	// and a RateLimit-Policy list of integer items, one per limit.
	//
	//	RateLimit-Policy: 10;w=6, 1000;w=86400
	//	RateLimit: limit=10, remaining=9, reset=1
	DraftIETF7
	// DraftIETF6 is draft 6: one integer field each for the binding limit's
	// limit, remaining and reset, and the RateLimit-Policy list of draft 7.
	//
	//	RateLimit-Policy: 10;w=6, 1000;w=86400
	//	RateLimit-Limit: 10
	//	RateLimit-Remaining: 9
	//	RateLimit-Reset: 1
	DraftIETF6
)

// String returns the draft's name, e.g. "draft-ietf-httpapi-ratelimit-headers-11".
func (d Draft) String() string {
	switch d {
	case DraftIETF11:
		return "draft-ietf-httpapi-ratelimit-headers-11"
	case DraftIETF7:
		return "draft-ietf-httpapi-ratelimit-headers-07"
	case DraftIETF6:
		return "draft-ietf-httpapi-ratelimit-headers-06"
	}
	return fmt.Sprintf("Draft(%d)", uint8(d))
}

// Field is a set of the header fields a [Writer] knows. Its constants name
// one field each, or a group of them; they combine with |.
type Field uint16

const (
	// RetryAfter is the Retry-After field, written on denials only.
	RetryAfter Field = 1 << iota
	// XRateLimitLimit is X-RateLimit-Limit: the binding limit's quota.
	XRateLimitLimit
	// XRateLimitRemaining is X-RateLimit-Remaining: the binding limit's
	// remaining quota, 0 on denials.
	XRateLimitRemaining
	// XRateLimitReset is X-RateLimit-Reset: the Unix time in seconds at
	// which the binding limit is fully replenished.
	XRateLimitReset
	// RateLimitPolicy is the IETF RateLimit-Policy field (every draft).
	RateLimitPolicy
	// RateLimit is the IETF RateLimit field (drafts 7 and 11).
	RateLimit
	// RateLimitLimit is the IETF RateLimit-Limit field (draft 6).
	RateLimitLimit
	// RateLimitRemaining is the IETF RateLimit-Remaining field (draft 6).
	RateLimitRemaining
	// RateLimitReset is the IETF RateLimit-Reset field (draft 6).
	RateLimitReset

	// XRateLimit is the X-RateLimit-Limit, -Remaining and -Reset fields.
	XRateLimit = XRateLimitLimit | XRateLimitRemaining | XRateLimitReset
	// IETF is every IETF field, of whichever draft.
	IETF = RateLimitPolicy | RateLimit | RateLimitLimit | RateLimitRemaining | RateLimitReset
	// AllFields is every field a Writer knows.
	AllFields = RetryAfter | XRateLimit | IETF
)

// numFields is how many single fields there are: the bits of AllFields.
const numFields = 9

var defaultNames = [numFields]string{
	"Retry-After",
	"X-RateLimit-Limit",
	"X-RateLimit-Remaining",
	"X-RateLimit-Reset",
	"RateLimit-Policy",
	"RateLimit",
	"RateLimit-Limit",
	"RateLimit-Remaining",
	"RateLimit-Reset",
}

// index returns the position of the single field f, or -1.
func (f Field) index() int {
	if f == 0 || f&(f-1) != 0 || f&AllFields == 0 {
		return -1
	}
	return bits.TrailingZeros16(uint16(f))
}

// String returns the default name of a single field, e.g. "X-RateLimit-Limit",
// or the names of a set's fields joined by "|".
func (f Field) String() string {
	if i := f.index(); i >= 0 {
		return defaultNames[i]
	}
	if f == 0 {
		return "Field(0)"
	}
	s := ""
	for i := range numFields {
		if f&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += defaultNames[i]
		}
	}
	if rest := f &^ AllFields; rest != 0 {
		if s != "" {
			s += "|"
		}
		s += fmt.Sprintf("Field(%#x)", uint16(rest))
	}
	return s
}

// draftFields returns the IETF fields draft d writes.
func draftFields(d Draft) Field {
	if d == DraftIETF6 {
		return RateLimitPolicy | RateLimitLimit | RateLimitRemaining | RateLimitReset
	}
	return RateLimitPolicy | RateLimit
}

// Options configures a [Writer]. The zero Options writes every field:
// Retry-After (on denials), X-RateLimit-* and the IETF fields of
// [DraftIETF11], under their default names.
type Options struct {
	// Draft selects the shape of the IETF fields.
	Draft Draft
	// Omit is the set of fields not to write, e.g. [XRateLimit] or
	// [IETF] | [RetryAfter].
	Omit Field
	// Names renames single fields, e.g. {XRateLimitLimit: "X-Rate-Limit-Limit"}.
	// A name must be an HTTP token; it is stored in canonical form. An
	// empty name keeps the default, and the names of fields the Writer
	// does not write (omitted, or not of its draft) are ignored. Two fields
	// written by the same Writer may not share a name.
	Names map[Field]string
	// PartitionKeySecret, when set, makes [Writer.WriteKey] add a partition
	// key parameter "pk" to every item of the draft 11 fields: the first
	// 12 bytes of HMAC-SHA-256(PartitionKeySecret, key) as an sf-binary.
	// The key itself is never written. The secret must be at least 16
	// bytes and should be random; it is only accepted with [DraftIETF11],
	// the only draft that defines pk.
	PartitionKeySecret []byte
}

// Writer writes the rate-limit fields of a [core.Result] into an
// [http.Header]. It is immutable and safe for concurrent use.
type Writer struct {
	draft Draft
	on    Field
	names [numFields]string // canonical names, "" for fields not written
	pk    *pkHasher         // nil without a partition key secret
	// policy caches the RateLimit-Policy value of the last policy written:
	// it depends on the policy alone (without a partition key).
	policy atomic.Pointer[policyValue]
}

type policyValue struct {
	p *core.Policy
	v string
}

// policyField returns the RateLimit-Policy value of policy p, whose limits
// are ls, from the cache when p was the last policy written.
func (w *Writer) policyField(p *core.Policy, ls []core.LimitResult) string {
	if c := w.policy.Load(); c != nil && c.p == p && p != nil {
		return c.v
	}
	var b []byte
	if w.draft == DraftIETF11 {
		b = appendPolicy11(nil, ls, nil, false)
	} else {
		b = appendPolicy67(nil, ls)
	}
	v := string(b)
	if p != nil {
		w.policy.Store(&policyValue{p: p, v: v})
	}
	return v
}

// New validates opts and returns the Writer they describe. Its errors wrap
// [core.ErrInvalidConfig].
func New(opts Options) (*Writer, error) {
	if opts.Draft > DraftIETF6 {
		return nil, fmt.Errorf("headers: unknown draft %v: %w", opts.Draft, core.ErrInvalidConfig)
	}
	if rest := opts.Omit &^ AllFields; rest != 0 {
		return nil, fmt.Errorf("headers: unknown fields %#x in Omit: %w", uint16(rest), core.ErrInvalidConfig)
	}
	w := &Writer{draft: opts.Draft}
	w.on = (RetryAfter | XRateLimit | draftFields(opts.Draft)) &^ opts.Omit
	for f, name := range opts.Names {
		i := f.index()
		if i < 0 {
			return nil, fmt.Errorf("headers: Names: %v is not a single field: %w", f, core.ErrInvalidConfig)
		}
		if name != "" && !validFieldName(name) {
			return nil, fmt.Errorf("headers: Names: %q for %v is not a valid field name: %w", name, f, core.ErrInvalidConfig)
		}
	}
	seen := make(map[string]Field, numFields)
	for i := range numFields {
		f := Field(1 << i)
		if w.on&f == 0 {
			continue
		}
		name := opts.Names[f]
		if name == "" {
			name = defaultNames[i]
		}
		name = http.CanonicalHeaderKey(name)
		if g, dup := seen[name]; dup {
			return nil, fmt.Errorf("headers: %v and %v are both named %q: %w", g, f, name, core.ErrInvalidConfig)
		}
		seen[name] = f
		w.names[i] = name
	}
	if opts.PartitionKeySecret != nil {
		if opts.Draft != DraftIETF11 {
			return nil, fmt.Errorf("headers: a partition key needs %v, not %v: %w", DraftIETF11, opts.Draft, core.ErrInvalidConfig)
		}
		if len(opts.PartitionKeySecret) < 16 {
			return nil, fmt.Errorf("headers: partition key secret of %d bytes, want at least 16: %w", len(opts.PartitionKeySecret), core.ErrInvalidConfig)
		}
		w.pk = newPKHasher(opts.PartitionKeySecret)
	}
	return w, nil
}

// Draft returns the shape of the IETF fields w writes.
func (w *Writer) Draft() Draft { return w.draft }

// Fields returns the set of fields w may write.
func (w *Writer) Fields() Field { return w.on }

// Names returns the canonical names of the fields w may write, in a fixed
// order, e.g. for an Access-Control-Expose-Headers field.
func (w *Writer) Names() []string {
	out := make([]string, 0, numFields)
	for _, n := range w.names {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Write sets the fields of r in h, replacing any values they had. It never
// deletes a field: a field it does not write this time (Retry-After on an
// admitted request, say) keeps whatever h held. A nil r or a Result without
// limits (the zero Result) writes nothing, and so does a nil Writer.
//
// Write makes two allocations: one string holding every value and one slice
// shared by the fields' value slices, each capped at length 1 so that a later
// h.Add on one field cannot overwrite another. (Values longer than 512 bytes
// in all, as with four limits of long names, cost a third.) Adding new keys
// to h may also grow the map, which is h's cost, not Write's.
func (w *Writer) Write(h http.Header, r *core.Result) { w.write(h, r, "", false) }

// WriteKey is [Writer.Write] with a partition key: when the Writer has a
// PartitionKeySecret, every item of the draft 11 fields gets the parameter
// pk, a keyed hash of key (see [Options]). Without a secret it is Write and
// key is ignored. key is typically the key r was decided for.
func (w *Writer) WriteKey(h http.Header, r *core.Result, key string) {
	w.write(h, r, key, w != nil && w.pk != nil)
}

// stackBuf is the size of the value buffer kept on the stack: enough for
// every field of four limits with names of a dozen bytes and no partition
// key. Longer values grow it on the heap, at the cost of one allocation.
const stackBuf = 512

func (w *Writer) write(h http.Header, r *core.Result, key string, withPK bool) {
	if w == nil || r == nil || h == nil {
		return
	}
	var lbuf [core.MaxLimits]core.LimitResult
	ls := r.AppendLimits(lbuf[:0])
	if len(ls) == 0 {
		return
	}
	var (
		stack [stackBuf]byte
		ends  [numFields]int
		keys  [numFields]string
		fixed [numFields]string // values not formatted into b
		n     int
	)
	b := stack[:0]
	denied := !r.Allowed
	finite := denied && r.RetryAfter != core.Never
	remaining := r.Remaining
	if denied {
		remaining = 0
	}
	// reset is the binding limit's reset in the IETF fields: on a denial
	// the drafts want it to agree with Retry-After.
	var reset int64
	if finite {
		reset = retrySeconds(r.RetryAfter)
	} else {
		reset = ceilSeconds(int64(r.ResetAfter))
	}
	on := w.on

	if on&RetryAfter != 0 && finite {
		b = appendInt(b, retrySeconds(r.RetryAfter))
		keys[n], ends[n] = w.names[0], len(b)
		n++
	}
	if on&XRateLimitLimit != 0 {
		b = appendInt(b, r.Limit)
		keys[n], ends[n] = w.names[1], len(b)
		n++
	}
	if on&XRateLimitRemaining != 0 {
		b = appendInt(b, remaining)
		keys[n], ends[n] = w.names[2], len(b)
		n++
	}
	if on&XRateLimitReset != 0 {
		b = appendInt(b, epochCeil(r.At().UnixNano(), int64(r.ResetAfter)))
		keys[n], ends[n] = w.names[3], len(b)
		n++
	}
	var pk [pkLen]byte
	if withPK {
		w.pk.encode(&pk, key)
	}
	if on&RateLimitPolicy != 0 {
		switch {
		case withPK:
			b = appendPolicy11(b, ls, pk[:], withPK)
		default:
			fixed[n] = w.policyField(r.Policy(), ls)
		}
		keys[n], ends[n] = w.names[4], len(b)
		n++
	}
	if on&RateLimit != 0 {
		if w.draft == DraftIETF11 {
			b = appendRateLimit11(b, ls, pk[:], withPK)
		} else {
			b = append(b, "limit="...)
			b = appendInt(b, r.Limit)
			b = append(b, ", remaining="...)
			b = appendInt(b, remaining)
			b = append(b, ", reset="...)
			b = appendInt(b, reset)
		}
		keys[n], ends[n] = w.names[5], len(b)
		n++
	}
	if on&RateLimitLimit != 0 {
		b = appendInt(b, r.Limit)
		keys[n], ends[n] = w.names[6], len(b)
		n++
	}
	if on&RateLimitRemaining != 0 {
		b = appendInt(b, remaining)
		keys[n], ends[n] = w.names[7], len(b)
		n++
	}
	if on&RateLimitReset != 0 {
		b = appendInt(b, reset)
		keys[n], ends[n] = w.names[8], len(b)
		n++
	}
	if n == 0 {
		return
	}
	s := string(b)
	vals := make([]string, n)
	start := 0
	for i := range n {
		vals[i] = s[start:ends[i]]
		if fixed[i] != "" {
			vals[i] = fixed[i]
		}
		start = ends[i]
		h[keys[i]] = vals[i : i+1 : i+1]
	}
}

// appendPolicy11 appends the draft 11 RateLimit-Policy list: one
// "name";q=Q;w=W item per limit.
func appendPolicy11(b []byte, ls []core.LimitResult, pk []byte, withPK bool) []byte {
	for i := range ls {
		l := &ls[i]
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendSFString(b, l.Name)
		b = append(b, ";q="...)
		b = appendInt(b, l.Quota)
		if l.Window > 0 {
			b = append(b, ";w="...)
			b = appendInt(b, windowSeconds(l.Window))
		}
		if withPK {
			b = appendPK(b, pk)
		}
	}
	return b
}

// appendRateLimit11 appends the draft 11 RateLimit list: one "name";r=R;t=T
// item per limit. A limit that denied the request has r=0 and, unless it can
// never pass, t is its wait until it would pass: no later than Retry-After,
// as the draft asks.
func appendRateLimit11(b []byte, ls []core.LimitResult, pk []byte, withPK bool) []byte {
	for i := range ls {
		l := &ls[i]
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendSFString(b, l.Name)
		rem, t := l.Remaining, ceilSeconds(int64(l.ResetAfter))
		if !l.Allowed {
			rem = 0
			if l.RetryAfter != core.Never {
				t = retrySeconds(l.RetryAfter)
			}
		}
		b = append(b, ";r="...)
		b = appendInt(b, rem)
		b = append(b, ";t="...)
		b = appendInt(b, t)
		if withPK {
			b = appendPK(b, pk)
		}
	}
	return b
}

// appendPolicy67 appends the drafts 6 and 7 RateLimit-Policy list: one Q;w=W
// item per limit. Draft 7 forbids two items with the same quota, so of
// limits sharing a quota only the one with the longest window (the
// strictest) is written, the first of equals.
func appendPolicy67(b []byte, ls []core.LimitResult) []byte {
	first := true
	for i := range ls {
		q, w := clampInt(ls[i].Quota), windowSeconds(ls[i].Window)
		if shadowed(ls, i, q, w) {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		b = appendInt(b, q)
		if ls[i].Window > 0 {
			b = append(b, ";w="...)
			b = appendInt(b, w)
		}
	}
	return b
}

// shadowed reports whether another limit of ls has quota q and a longer
// window than w, or the same window and comes first.
func shadowed(ls []core.LimitResult, i int, q, w int64) bool {
	for j := range ls {
		if j == i || clampInt(ls[j].Quota) != q {
			continue
		}
		wj := windowSeconds(ls[j].Window)
		if wj > w || (wj == w && j < i) {
			return true
		}
	}
	return false
}

func appendPK(b []byte, pk []byte) []byte {
	b = append(b, ";pk=:"...)
	b = append(b, pk...)
	return append(b, ':')
}

// pkBytes is how many bytes of the HMAC are kept: 96 bits, which base64
// writes in pkLen characters without padding.
const (
	pkBytes = 12
	pkLen   = 16
)

// pkHasher computes partition keys with pooled HMAC states, so that WriteKey
// allocates no more than Write once the pool is warm.
type pkHasher struct {
	pool sync.Pool
}

type pkState struct {
	mac hash.Hash
	in  []byte
	sum []byte
}

func newPKHasher(secret []byte) *pkHasher {
	secret = append([]byte(nil), secret...)
	p := &pkHasher{}
	p.pool.New = func() any {
		return &pkState{mac: hmac.New(sha256.New, secret), sum: make([]byte, 0, sha256.Size)}
	}
	return p
}

// encode writes the base64 of the partition key of key into dst.
func (p *pkHasher) encode(dst *[pkLen]byte, key string) {
	s := p.pool.Get().(*pkState)
	s.mac.Reset()
	s.in = append(s.in[:0], key...)
	s.mac.Write(s.in)
	s.sum = s.mac.Sum(s.sum[:0])
	base64.StdEncoding.Encode(dst[:], s.sum[:pkBytes])
	if cap(s.in) > 1024 {
		s.in = nil
	}
	p.pool.Put(s)
}

// validFieldName reports whether s is an HTTP token (RFC 9110 §5.1).
func validFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return false
		}
	}
	return true
}

func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}
