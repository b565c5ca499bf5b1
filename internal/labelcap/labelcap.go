// Package labelcap bounds the label values of the exporters
// (observe/promobserve, observe/otelobserve) in number and in length: a
// policy name may come from anywhere (an Overrides provider naming a
// policy per tenant after what the tenant chose, tenants coming and
// going), and a series made for every name ever decided, or a label as
// long as any name, would grow without bound, in the process and in the
// metrics backend.
package labelcap

import (
	"hash/fnv"
	"hash/maphash"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/core"
)

// MaxBytes is the longest label value [Value] returns.
const MaxBytes = 128

// Value returns s as a label value every backend accepts: valid UTF-8
// (each invalid byte sequence replaced by U+FFFD) of at most MaxBytes
// bytes. A longer s keeps its start, cut at a rune boundary, then "…" and
// 16 hex digits of its FNV-1a hash, so that two long names differing
// past the cut stay apart (and a name is written alike by every process,
// run after run: a series keeps its labels across restarts). A name
// spelled as another's value is written alike: a collector must sum by
// value, never list two metrics of one (see memusage).
func Value(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= MaxBytes {
		return s
	}
	const tail = len("…") + 16
	cut := MaxBytes - tail
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	const hex = "0123456789abcdef"
	b := make([]byte, 0, MaxBytes)
	b = append(append(b, s[:cut]...), "…"...)
	for _, c := range h.Sum(nil) {
		b = append(b, hex[c>>4], hex[c&0xf])
	}
	return string(b)
}

// name is a name as [Names] holds it: itself when it is at most MaxBytes
// long; else its first MaxBytes bytes and a hash of the whole (maphash's,
// as fast as the map's own hashing of a long key: a decision of a long
// name looks it up every time). A long name, client-chosen (a tenant's),
// is thus never kept whole: the names admitted hold at most MaxBytes
// bytes each, for good, whatever their length. (Two long names of one
// head and one hash, one chance in 2⁶⁴, would share their labels.)
type name struct {
	head string
	sum  uint64
	long bool
}

// nameOf returns how Names looks s up: a long s's head is a part of s, to
// be copied when stored (see stored).
func nameOf(s string) name {
	if len(s) <= MaxBytes {
		return name{head: s}
	}
	return name{head: s[:MaxBytes], sum: maphash.String(seed, s), long: true}
}

// seed seeds the hash of long names.
var seed = maphash.MakeSeed()

// stored returns k as Names stores it: a long name's head a copy, lest the
// map keep the whole name it was cut from.
func (k name) stored() name {
	if k.long {
		k.head = strings.Clone(k.head)
	}
	return k
}

// Other is the policy and limit label value of a decision whose names
// are beyond the bound.
const Other = "(other)"

// Names is the set of names given labels of their own: the first max
// policy names seen, and of their limit names the first max ×
// core.MaxLimits pairs (a policy has at most core.MaxLimits limits at a
// time; the pairs bound those changed later). It holds the names admitted
// (a name longer than MaxBytes as its start and a hash: see name), with
// their labels ([Value]) computed once: a name seen before, admitted or
// not, costs a read lock and map lookups, never an allocation (nor, for a
// name of at most MaxBytes, a hash). It is safe for concurrent use.
type Names struct {
	max int

	mu       sync.RWMutex
	policies map[name]string    // an admitted policy name → its label
	pairs    map[[2]name]string // an admitted (policy, limit) → the limit's label
}

// New returns an empty Names admitting max policy names.
func New(max int) *Names {
	return &Names{max: max, policies: map[name]string{}, pairs: map[[2]name]string{}}
}

// Labels returns the label values of a decision of policy, binding (or
// shadow) limit limit: the names as [Value] writes them while the bound
// admits them, else Other for the policy and the limit (a policy beyond
// the bound), or for the limit alone (a pair beyond it). A name admitted
// once stays admitted.
func (n *Names) Labels(policy, limit string) (string, string) {
	pk := nameOf(policy)
	pair := [2]name{pk, nameOf(limit)}
	n.mu.RLock()
	pl, known := n.policies[pk]
	ll, paired := n.pairs[pair]
	full, pairsFull := len(n.policies) >= n.max, len(n.pairs) >= n.max*core.MaxLimits
	n.mu.RUnlock()
	switch {
	case known && paired:
		return pl, ll
	case !known && full:
		return Other, Other
	case known && pairsFull:
		return pl, Other
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if pl, known = n.admitLocked(policy, pk); !known {
		return Other, Other
	}
	if ll, paired = n.pairs[pair]; !paired {
		if len(n.pairs) >= n.max*core.MaxLimits {
			return pl, Other
		}
		ll = Value(limit)
		n.pairs[[2]name{pair[0].stored(), pair[1].stored()}] = ll
	}
	return pl, ll
}

// Label returns the label of policy if it is admitted.
func (n *Names) Label(policy string) (string, bool) {
	k := nameOf(policy)
	n.mu.RLock()
	defer n.mu.RUnlock()
	l, ok := n.policies[k]
	return l, ok
}

// Policy returns the label of policy alone, as [Names.Labels] does,
// admitting it while the bound allows, else Other.
func (n *Names) Policy(policy string) string {
	k := nameOf(policy)
	n.mu.RLock()
	l, ok := n.policies[k]
	full := len(n.policies) >= n.max
	n.mu.RUnlock()
	switch {
	case ok:
		return l
	case full:
		return Other
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if l, ok = n.admitLocked(policy, k); !ok {
		return Other
	}
	return l
}

// admitLocked returns the label of policy (held as k), admitting it while
// the bound allows, and whether it is admitted; n.mu is held for writing.
func (n *Names) admitLocked(policy string, k name) (string, bool) {
	if l, ok := n.policies[k]; ok {
		return l, true
	}
	if len(n.policies) >= n.max {
		return "", false
	}
	l := Value(policy)
	n.policies[k.stored()] = l
	return l, true
}

// Table returns the label of a memory table's policy (the exporters'
// memory gauges): the label the decisions gave it, in the first of
// decided admitting it, else tables's ([Names.Policy]). A table's policy
// is not always decided through the exporter (a limiter observed by
// another), and tables bounds those: the tables of tenants beyond the
// decisions' bound, coming and going, are summed as Other, never a series
// each.
func Table(policy string, tables *Names, decided ...*Names) string {
	for _, n := range decided {
		if l, ok := n.Label(policy); ok {
			return l
		}
	}
	return tables.Policy(policy)
}

// Bounds are an exporter's bounds on its policy and limit labels: the
// limiters' own names, those an Overrides provider gave
// (core.Decision.Override), bounded apart so that tenants coming and
// going cannot crowd the service's own policies out, and the names of
// memory tables neither holds (see [Table]).
type Bounds struct {
	own, overrides, tables *Names
}

// NewBounds returns Bounds admitting max names of each kind.
func NewBounds(max int) *Bounds {
	return &Bounds{own: New(max), overrides: New(max), tables: New(max)}
}

// Labels returns the labels of a decision of policy, limit limit, as
// [Names.Labels] of the names of its kind (override: a provider's).
func (b *Bounds) Labels(override bool, policy, limit string) (string, string) {
	if override {
		return b.overrides.Labels(policy, limit)
	}
	return b.own.Labels(policy, limit)
}

// Table returns the policy label of a memory table (see [Table]): its
// decisions' if they have one of their own, else one of the tables'.
func (b *Bounds) Table(policy string) string {
	return Table(policy, b.tables, b.own, b.overrides)
}
