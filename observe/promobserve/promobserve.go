// Package promobserve exports floodgate's decisions and store states as
// Prometheus metrics (prometheus/client_golang).
//
// It is a module of its own, so that floodgate's root module never
// requires Prometheus. Make an [Observer] with [New], give it to the
// limiters (core.WithObserver) and to the Redis store
// (redisstore.Options.Observer), and, for the in-memory store's fill
// level, to [Observer.WatchMemory]:
//
//	obs, err := promobserve.New(prometheus.DefaultRegisterer, promobserve.Options{})
//	lim, err := core.NewLimiter(policy, core.WithObserver(obs))
//
// The metrics (with the default namespace, "floodgate"):
//
//	floodgate_decisions_total{policy,limit,result,store,source}  counter
//	floodgate_store_latency_seconds{store,source}                histogram
//	floodgate_store_up{store}                                    gauge, 1 or 0
//	floodgate_store_fallback{store}                              gauge, 1 while a fallback decides
//	floodgate_store_slow{store}                                  gauge, 1 while the round trip is not below the deadline
//	floodgate_store_changes_total{store,change}                  counter
//	floodgate_memory_keys{policy}                                gauge
//	floodgate_memory_max_keys{policy}                            gauge
//
// result is "allowed", "shaped", "denied", "error" or "abandoned"
// (core.Verdict), and
// limit the binding limit's name ("" for an error); a shadow limit that
// would have denied (core.Decision.ShadowDenied) is counted once more, as
// result "shadow_denied" with limit its own name, whatever the decision:
// leave that result out of sums of decisions; source is "store",
// "cache" (the Redis store's deny cache) or "fallback" (its failure mode);
// store is "memory", "redis", or another store's kind; change is a
// core.StoreChange's name. No label ever holds a key. The policy and limit
// labels of decisions are bounded in number (Options.MaxPolicies): the
// decisions of policies named beyond it are counted as policy and limit
// "(other)" ([Other]). A label value that
// is not valid UTF-8 (which Prometheus refuses by panicking) is written
// with U+FFFD for each invalid byte sequence, and one longer than
// [MaxLabelBytes] as its start and a hash of the whole. The latency
// histogram counts the decisions of stores that measure one (not the
// in-memory store's, decided in-process in nanoseconds). The store gauges
// appear with a store's first decision or change; for several stores of
// one kind (two Redis stores) they report the worst: up 0 while any is
// unreachable, fallback and slow 1 while any is so; a store closed
// (core.StoreClosed) is forgotten.
package promobserve

import (
	"context"
	"fmt"
	"sync"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/internal/labelcap"
	"github.com/prometheus/client_golang/prometheus"
)

// DefaultBuckets are the store latency histogram's bounds, in seconds:
// from 100 µs (a Redis on the same host) to 1 s (past any sane deadline).
var DefaultBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}

// Options configures an [Observer]. The zero Options is usable.
type Options struct {
	// Namespace starts every metric's name; "" means "floodgate".
	Namespace string
	// Buckets are the store latency histogram's bounds in seconds; nil
	// means [DefaultBuckets]. They must be strictly increasing (a last
	// +Inf is implicit): New refuses others.
	Buckets []float64
	// ConstLabels are added to every metric (a service name, say); New
	// refuses "le", the histogram's own.
	ConstLabels prometheus.Labels
	// MaxPolicies bounds the policy label values of the decisions
	// counter (default [DefaultMaxPolicies]; New refuses a negative one):
	// the first MaxPolicies policy names decided, and the first
	// MaxPolicies × core.MaxLimits of their (policy, limit) pairs, keep
	// labels of their own; a decision of a later policy is counted with
	// policy and limit [Other], one of a later limit of an earlier policy
	// with limit Other. A name admitted stays so: an Overrides provider
	// naming a policy per tenant, tenants coming and going, would
	// otherwise make series of every name ever decided, never dropped.
	// The names an Overrides provider gave (core.Decision.Override) are
	// bounded apart from the others, each to MaxPolicies: tenants, however
	// many, never crowd out the limiters' own policies. The memory gauges'
	// policy labels are bounded too: a table's policy keeps its decisions'
	// label, else one while MaxPolicies more table names are admitted;
	// later tables are summed as Other. Set it above the policy names the
	// process decides.
	MaxPolicies int
}

// DefaultMaxPolicies is the default of Options.MaxPolicies.
const DefaultMaxPolicies = 512

// Other is the policy and limit label value of the decisions beyond
// Options.MaxPolicies.
const Other = labelcap.Other

// Observer is a core.Observer that counts decisions and tracks store
// states in Prometheus metrics. It is safe for concurrent use; a decision
// of a label set seen before allocates nothing.
type Observer struct {
	decisions *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	up        *prometheus.GaugeVec
	fallback  *prometheus.GaugeVec
	slow      *prometheus.GaugeVec
	changes   *prometheus.CounterVec
	memory    *memoryCollector

	// bounds are the policy and limit names given labels of their own
	// (labelcap.Bounds).
	bounds *labelcap.Bounds

	mu        sync.RWMutex
	counters  map[decisionKey]prometheus.Counter // by the key of its labels (see counter)
	hists     map[latencyKey]prometheus.Observer
	stores    map[string]bool                // stores whose gauges exist
	instances map[instanceKey]*instanceState // each store's state, by kind and instance
}

// instanceKey is one store: its kind and instance (core.StoreEvent).
type instanceKey struct {
	store    string
	instance uint64
}

// instanceState is what one store's changes said last.
type instanceState struct {
	down, fallback, slow bool
}

type decisionKey struct {
	policy, limit string
	verdict       core.Verdict
	shadow        bool // a shadow limit's would-be denial: verdict is then zero, as its result label says nothing of it
	store         string
	source        core.Source
}

type latencyKey struct {
	store  string
	source core.Source
}

// New returns an Observer whose metrics are registered with reg. It fails
// when reg refuses them (metrics of the same names registered already:
// the error names the first, and none of the Observer's stays registered),
// and on Buckets or ConstLabels Prometheus would refuse (wrapping
// core.ErrInvalidConfig).
func New(reg prometheus.Registerer, opts Options) (*Observer, error) {
	if isnil.Value(reg) {
		return nil, fmt.Errorf("promobserve: nil Registerer: %w", core.ErrInvalidConfig)
	}
	ns := opts.Namespace
	if ns == "" {
		ns = "floodgate"
	}
	buckets := opts.Buckets
	if buckets == nil {
		buckets = DefaultBuckets
	}
	if opts.MaxPolicies < 0 {
		return nil, fmt.Errorf("promobserve: MaxPolicies %d: want 0 (the default) or more: %w", opts.MaxPolicies, core.ErrInvalidConfig)
	}
	if opts.MaxPolicies == 0 {
		opts.MaxPolicies = DefaultMaxPolicies
	}
	cl := opts.ConstLabels
	if err := checkHistogram(buckets, cl); err != nil {
		return nil, fmt.Errorf("promobserve: %w: %w", err, core.ErrInvalidConfig)
	}
	o := &Observer{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "decisions_total", ConstLabels: cl,
			Help: "Rate-limit decisions, by policy, binding limit, result, store and source; result=\"shadow_denied\" counts the would-be denials of shadow limits.",
		}, []string{"policy", "limit", "result", "store", "source"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Name: "store_latency_seconds", Buckets: buckets, ConstLabels: cl,
			Help: "Time a store took to decide, by store and source (not measured for the in-memory store).",
		}, []string{"store", "source"}),
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: ns, Name: "store_up", ConstLabels: cl,
			Help: "1 while the store decides on its backend, 0 while it is unreachable.",
		}, []string{"store"}),
		fallback: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: ns, Name: "store_fallback", ConstLabels: cl,
			Help: "1 while the store's fallback (fail-open or a local limiter) decides.",
		}, []string{"store"}),
		slow: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: ns, Name: "store_slow", ConstLabels: cl,
			Help: "1 while the round trip to the store's backend is not below the decisions' deadline.",
		}, []string{"store"}),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "store_changes_total", ConstLabels: cl,
			Help: "Changes of store state (unreachable, reachable, slow, slow-ended, key-conflict, evicting, error-reply, closed).",
		}, []string{"store", "change"}),
		memory:   newMemoryCollector(ns, cl),
		bounds:   labelcap.NewBounds(opts.MaxPolicies),
		counters: map[decisionKey]prometheus.Counter{},
		hists:    map[latencyKey]prometheus.Observer{},
		stores:   map[string]bool{},

		instances: map[instanceKey]*instanceState{},
	}
	o.memory.label = o.bounds.Table
	if err := register(reg, ns, []named{
		{o.decisions, "decisions_total"}, {o.latency, "store_latency_seconds"}, {o.up, "store_up"},
		{o.fallback, "store_fallback"}, {o.slow, "store_slow"}, {o.changes, "store_changes_total"},
		{o.memory, "memory_keys and " + prometheus.BuildFQName(ns, "memory", "max_keys")},
	}); err != nil {
		return nil, err
	}
	return o, nil
}

// named is a collector and the name of its metrics, without namespace.
type named struct {
	c    prometheus.Collector
	name string
}

// register registers each of cs with reg, or none: when reg refuses one
// (a metric of its name registered already), those registered before it
// are unregistered, so that a failed New leaves nothing behind that a
// later New, the name freed, would collide with; the error names the
// metric refused.
func register(reg prometheus.Registerer, ns string, cs []named) error {
	for i, c := range cs {
		if err := reg.Register(c.c); err != nil {
			for _, done := range cs[:i] {
				reg.Unregister(done.c)
			}
			return fmt.Errorf("promobserve: registering %s (one Observer serves every limiter and store; another Namespace, or a registry of its own, keeps two apart): %w",
				prometheus.BuildFQName(ns, "", c.name), err)
		}
	}
	return nil
}

// checkHistogram makes a histogram of buckets and const labels cl, as
// the latency HistogramVec makes each of its children: client_golang
// checks the buckets (strictly increasing) and the const labels (no "le")
// only then, by panicking, which would be at a store's first decision, on
// the request's goroutine.
func checkHistogram(buckets []float64, cl prometheus.Labels) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("histogram buckets %v, const labels %v: %v", buckets, cl, r)
		}
	}()
	prometheus.NewHistogram(prometheus.HistogramOpts{Name: "check", Buckets: buckets, ConstLabels: cl})
	return nil
}

// Decided counts d, and observes its latency when it has one.
func (o *Observer) Decided(_ context.Context, d core.Decision) {
	k := decisionKey{policy: d.Policy, limit: d.LimitName, verdict: d.Verdict, store: d.Store, source: d.Source}
	o.mu.RLock()
	c, ok := o.counters[k]
	var h prometheus.Observer
	if d.Latency > 0 {
		h = o.hists[latencyKey{d.Store, d.Source}]
	}
	o.mu.RUnlock()
	if !ok {
		c = o.counter(k, d.Override)
	}
	c.Inc()
	if d.Latency > 0 {
		if h == nil {
			h = o.histogram(latencyKey{d.Store, d.Source})
		}
		h.Observe(d.Latency.Seconds())
	}
	for _, name := range d.ShadowDenied {
		k := decisionKey{policy: d.Policy, limit: name, shadow: true, store: d.Store, source: d.Source}
		o.mu.RLock()
		c, ok := o.counters[k]
		o.mu.RUnlock()
		if !ok {
			c = o.counter(k, d.Override)
		}
		c.Inc()
	}
}

// ResultShadowDenied is the result label of a shadow limit's would-be
// denial.
const ResultShadowDenied = "shadow_denied"

func (k *decisionKey) result() string {
	if k.shadow {
		return ResultShadowDenied
	}
	return k.verdict.String()
}

// counter returns the counter of k, a key not found in o.counters: that
// of its labels (o.bounds bounds its policy and limit), made at its first use with the gauges of
// its store. o.counters holds the keys of labels alone, so that names
// beyond the bound add nothing to it.
func (o *Observer) counter(k decisionKey, override bool) prometheus.Counter {
	k.policy, k.limit = o.bounds.Labels(override, k.policy, k.limit)
	o.mu.RLock()
	c, ok := o.counters[k]
	o.mu.RUnlock()
	if ok {
		return c
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if c, ok = o.counters[k]; !ok {
		c = o.decisions.WithLabelValues(label(k.policy), label(k.limit), k.result(), label(k.store), k.source.String())
		o.counters[k] = c
	}
	o.seeLocked(k.store)
	return c
}

// histogram returns the latency histogram of k, made at its first use.
func (o *Observer) histogram(k latencyKey) prometheus.Observer {
	o.mu.Lock()
	defer o.mu.Unlock()
	h, ok := o.hists[k]
	if !ok {
		h = o.latency.WithLabelValues(label(k.store), k.source.String())
		o.hists[k] = h
	}
	o.seeLocked(k.store)
	return h
}

// seeLocked makes the gauges of a store seen for the first time: up, no
// fallback, not slow.
func (o *Observer) seeLocked(store string) {
	if o.stores[store] {
		return
	}
	o.stores[store] = true
	o.up.WithLabelValues(label(store)).Set(1)
	o.fallback.WithLabelValues(label(store)).Set(0)
	o.slow.WithLabelValues(label(store)).Set(0)
}

// StoreChanged counts e and sets the gauges of its store's kind: the
// worst of that kind's stores (core.StoreEvent.Instance tells them apart),
// so that one store coming back does not hide another still down.
func (o *Observer) StoreChanged(e core.StoreEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seeLocked(e.Store)
	o.changes.WithLabelValues(label(e.Store), e.Change.String()).Inc()
	k := instanceKey{e.Store, e.Instance}
	st := o.instances[k]
	if st == nil {
		st = &instanceState{}
		o.instances[k] = st
	}
	switch e.Change {
	case core.StoreClosed:
		// The store reports nothing more: its outage ends with it.
		delete(o.instances, k)
	case core.StoreUnreachable:
		st.down, st.fallback = true, e.Fallback
	case core.StoreReachable:
		st.down, st.fallback = false, false
	case core.StoreSlow:
		st.slow = true
	case core.StoreSlowEnded:
		st.slow = false
	default:
		return
	}
	var down, fallback, slow bool
	for k, st := range o.instances {
		if k.store == e.Store {
			down, fallback, slow = down || st.down, fallback || st.down && st.fallback, slow || st.slow
		}
	}
	o.up.WithLabelValues(label(e.Store)).Set(b2f(!down))
	o.fallback.WithLabelValues(label(e.Store)).Set(b2f(fallback))
	o.slow.WithLabelValues(label(e.Store)).Set(b2f(slow))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// WatchMemory adds m's tables to floodgate_memory_keys and
// floodgate_memory_max_keys, read at each scrape (tables of one policy
// name, in m or in several stores watched, are added together).
func (o *Observer) WatchMemory(m *core.MemoryStore) { o.memory.stores.Watch(m) }

var _ core.Observer = (*Observer)(nil)

// label returns s as a label value Prometheus accepts, and of a bounded
// length: valid UTF-8, each invalid byte sequence replaced by U+FFFD, of
// at most [MaxLabelBytes] bytes (see labelcap.Value). Prometheus panics on
// invalid UTF-8 (WithLabelValues, MustNewConstMetric), and a policy or
// limit name may come from anywhere (an Overrides provider naming
// policies after tenants): no name may panic a decision or a scrape, nor
// make a label value as long as it is (which a Prometheus with
// label_value_length_limit answers by refusing the whole scrape).
func label(s string) string { return labelcap.Value(s) }

// MaxLabelBytes is the longest label value: a longer name is written as
// its start, "…" and 16 hex digits of a hash of the whole.
const MaxLabelBytes = labelcap.MaxBytes
