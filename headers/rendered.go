package headers

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/labelcap"
	"github.com/floodgate-go/floodgate/internal/seconds"
)

// rendered is what a policy's limits render to, whatever the decision:
// a policy's names, quotas and windows never change.
type rendered struct {
	p *core.Policy
	n int // limits
	// policy is the RateLimit-Policy value without partition keys.
	policy string
	// quota and quotaText are each limit's quota and its text, for the
	// X-RateLimit-Limit fields of a Result whose Quota is one of them.
	quota     [core.MaxLimits]int64
	quotaText [core.MaxLimits]string
	// item is each limit's draft 11 RateLimit-Policy item, `"name";q=Q;w=W`,
	// and rateHead the head of its RateLimit item, `"name";r=`.
	item     [core.MaxLimits]string
	rateHead [core.MaxLimits]string
}

// render renders the limits ls of policy p for draft d.
func render(p *core.Policy, ls []core.LimitResult, d Draft) *rendered {
	pr := &rendered{p: p, n: len(ls)}
	var b []byte
	for i := range ls {
		l := &ls[i]
		pr.quota[i] = l.Quota
		pr.quotaText[i] = string(appendInt(nil, l.Quota))
		pr.item[i] = string(appendPolicyItem11(b[:0], l))
		b = appendSFString(b[:0], limitName(l.Name))
		pr.rateHead[i] = string(append(b, ";r="...))
	}
	if d == DraftIETF11 {
		pr.policy = string(appendPolicy11(b[:0], pr, nil))
	} else {
		pr.policy = string(appendPolicy67(b[:0], ls))
	}
	return pr
}

// limitName returns the name written of a limit named name: name itself,
// or, when it is longer than labelcap.MaxBytes (128) bytes, its start,
// "…" and a hash of the whole, as the exporters label it. A core.Limit's
// name has no bound (an Overrides provider may name limits after its
// data): written whole, it made fields of any size, past proxies' header
// buffers and the 1,024 characters RFC 9651 asks sf-string parsers to
// take, and the client lost every limit. Two long names stay apart, and a
// name is written alike by every process.
func limitName(name string) string {
	if len(name) <= labelcap.MaxBytes {
		return name
	}
	return labelcap.Value(name)
}

// limitText returns the text of v if it is one of the limits' quotas
// (always so for the Limit of a Result made by a core.Limiter), else "".
func (pr *rendered) limitText(v int64) string {
	for i := range pr.n {
		if pr.quota[i] == v {
			return pr.quotaText[i]
		}
	}
	return ""
}

// appendPolicyItem11 appends the draft 11 RateLimit-Policy item of l,
// without a partition key.
func appendPolicyItem11(b []byte, l *core.LimitResult) []byte {
	b = appendSFString(b, limitName(l.Name))
	b = append(b, ";q="...)
	b = appendInt(b, l.Quota)
	if l.Window > 0 {
		b = append(b, ";w="...)
		b = appendInt(b, seconds.Positive(l.Window))
	}
	return b
}

// appendPolicy11 appends the draft 11 RateLimit-Policy list: one
// "name";q=Q;w=W item per limit, each with the partition key pk unless pk
// is nil.
func appendPolicy11(b []byte, pr *rendered, pk *[pkLen]byte) []byte {
	for i := range pr.n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, pr.item[i]...)
		if pk != nil {
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
		q, w := clampInt(ls[i].Quota), seconds.Positive(ls[i].Window)
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
		wj := seconds.Positive(ls[j].Window)
		if wj > w || (wj == w && j < i) {
			return true
		}
	}
	return false
}

// cacheSlots is how many policies past the first a Writer keeps rendered,
// each in the slot its pointer hashes to: a policy written replaces the
// one in its slot. A limiter decides a policy of its own after each
// core.Limiter.SetPolicy (a reload, an Overrides name whose limits take
// turns), so the policies written pile up without end: a cache that kept
// the first 256 and refused the rest rendered every policy set after 256
// changes on every Write (11 allocations where 1), and one that grew
// would keep every policy ever set.
const cacheSlots = 256

// cacheSeed hashes the policies' pointers to their slots.
var cacheSeed = maphash.MakeSeed()

// policyCache keeps the rendering of policies written, read without a
// lock: the first policy in a field of its own (most programs have one),
// the others each in its slot.
type policyCache struct {
	first atomic.Pointer[rendered]
	slots [cacheSlots]atomic.Pointer[rendered]
}

// get returns the rendering, for draft d, of the policy r decided.
func (c *policyCache) get(r *core.Result, d Draft) *rendered {
	p := r.Policy()
	if pr := c.first.Load(); pr != nil && pr.p == p {
		return pr
	}
	slot := &c.slots[maphash.Comparable(cacheSeed, p)%cacheSlots]
	if pr := slot.Load(); pr != nil && pr.p == p {
		return pr
	}
	var ls [core.MaxLimits]core.LimitResult
	pr := render(p, r.AppendLimits(ls[:0]), d)
	if p != nil && !c.first.CompareAndSwap(nil, pr) {
		slot.Store(pr)
	}
	return pr
}
