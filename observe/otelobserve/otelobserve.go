// Package otelobserve exports floodgate's decisions and store states as
// OpenTelemetry metrics, and records each decision on the request's span.
//
// It is a module of its own, so that floodgate's root module never
// requires OpenTelemetry. Make an [Observer] with [New], give it to the
// limiters (core.WithObserver) and to the Redis store
// (redisstore.Options.Observer), and, for the in-memory store's fill
// level, to [Observer.WatchMemory].
//
// The metrics are shaped like ASP.NET Core's rate-limiting metrics
// (aspnetcore.rate_limiting.*) under a floodgate. prefix; README.md lists
// them. The decisions are counted by policy, binding limit and result:
// "acquired" (admitted, at once or after a delay), "rejected" or "error";
// an admission with a delay (shaping) also records the delay as its time
// in queue. A shadow limit (core.Limit.Shadow) that would have rejected a
// request is counted once more, as result "shadow_rejected" with limit its
// own name. The policy and limit values of the metrics are bounded in
// number (Options.MaxPolicies): the decisions of policies named beyond it
// are counted as policy and limit "(other)" ([Other]). A name longer than
// [MaxAttrBytes] is written as its start and a hash of the whole.
//
// # Traces
//
// When the context a decision is asked with carries a recording span (the
// request's, started by otelhttp, say), the decision is recorded on it: an
// event "floodgate.rate_limiting.decision" per decision, with the policy,
// limit, result, cost, source, for a rejection the retry-after in
// seconds, and the shadow limits that would have rejected it; and the same
// but the shadow limits as attributes of the span, which thus hold the
// last decision of the request. No span is ever started.
package otelobserve

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/internal/labelcap"
	"github.com/floodgate-go/floodgate/internal/memusage"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the Observer's meter.
const ScopeName = "github.com/floodgate-go/floodgate/observe/otelobserve"

// The attribute keys.
const (
	AttrPolicy = attribute.Key("floodgate.rate_limiting.policy")
	AttrLimit  = attribute.Key("floodgate.rate_limiting.limit")
	AttrResult = attribute.Key("floodgate.rate_limiting.result")
	AttrStore  = attribute.Key("floodgate.rate_limiting.store")
	AttrSource = attribute.Key("floodgate.rate_limiting.source")
	AttrChange = attribute.Key("floodgate.rate_limiting.store.change")
	// AttrCost, AttrRetryAfter and AttrShadowRejected are recorded on
	// spans only. AttrShadowRejected lists the shadow limits that would
	// have rejected the request (core.Decision.ShadowDenied), when some
	// would.
	AttrCost           = attribute.Key("floodgate.rate_limiting.cost")
	AttrRetryAfter     = attribute.Key("floodgate.rate_limiting.retry_after")
	AttrShadowRejected = attribute.Key("floodgate.rate_limiting.shadow_rejected")
)

// EventName is the name of the span event recording a decision.
const EventName = "floodgate.rate_limiting.decision"

// The result attribute's values.
const (
	ResultAcquired = "acquired"
	ResultRejected = "rejected"
	ResultError    = "error"
	// ResultAbandoned counts a take whose caller went away while the
	// store decided it (core.VerdictAbandoned).
	ResultAbandoned = "abandoned"
	// ResultShadowRejected counts a shadow limit's would-be rejection
	// (core.Decision.ShadowDenied), the limit attribute its name: once more
	// for a decision, whatever its result, as the shadow limit is never
	// enforced.
	ResultShadowRejected = "shadow_rejected"
)

// DefaultBuckets are the bounds, in seconds, of the store latency and
// time-in-queue histograms: from 100 µs to 10 s.
var DefaultBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Options configures an [Observer]. The zero Options is usable.
type Options struct {
	// MeterProvider provides the meter; nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Buckets are the histograms' bounds in seconds; nil means
	// [DefaultBuckets].
	Buckets []float64
	// NoSpans turns off recording decisions on spans.
	NoSpans bool
	// MaxPolicies bounds the policy attribute values of the metrics
	// (default [DefaultMaxPolicies]; New refuses a negative one): the
	// first MaxPolicies policy names decided, and the first MaxPolicies ×
	// core.MaxLimits of their (policy, limit) pairs, keep values of their
	// own; a decision of a later policy is counted with policy and limit
	// [Other], one of a later limit of an earlier policy with limit
	// Other. A name admitted stays so: an Overrides provider naming a
	// policy per tenant, tenants coming and going, would otherwise make
	// attribute sets of every name ever decided, kept by the Observer for
	// good. The names an Overrides provider gave (core.Decision.Override)
	// are bounded apart from the others, each to MaxPolicies: tenants never
	// crowd out the limiters' own policies. The memory gauges' policy
	// values are bounded too: a table's policy keeps its decisions' value,
	// else one while MaxPolicies more table names are admitted; later tables
	// are summed as Other. Set it above the policy names the process
	// decides. Spans
	// record the names themselves (at most MaxAttrBytes of each).
	MaxPolicies int
	// MaxOverrideSets bounds the attribute sets made for the names an
	// Overrides provider gave, per instrument (default
	// [DefaultMaxOverrideSets]; New refuses a negative one): a decision
	// that would make one more is counted with policy and limit [Other].
	// The names alone do not bound them (a tenant's policy of several
	// limits, allowed and rejected, from several sources), and the SDK
	// sends every set past its cardinality limit (2,000 by default) to one
	// overflow set: tenants would fill it first, and the limiters' own
	// policies decided after them would have no set of their own. Keep it
	// well below the SDK's cardinality limit.
	MaxOverrideSets int
}

// DefaultMaxPolicies is the default of Options.MaxPolicies.
const DefaultMaxPolicies = 512

// DefaultMaxOverrideSets is the default of Options.MaxOverrideSets: half
// the SDK's default cardinality limit.
const DefaultMaxOverrideSets = 1000

// Other is the policy and limit attribute value of the decisions beyond
// Options.MaxPolicies.
const Other = labelcap.Other

// Observer is a core.Observer recording OpenTelemetry metrics and span
// events. It is safe for concurrent use.
type Observer struct {
	requests metric.Int64Counter
	queue    metric.Float64Histogram
	latency  metric.Float64Histogram
	changes  metric.Int64Counter
	noSpans  bool
	// opts are the Options of New, their defaults set.
	opts Options
	// bounds are the policy and limit names given values of their own
	// (labelcap.Bounds).
	bounds *labelcap.Bounds

	// maxOverrideSets bounds overrideSets, the sets made for an Overrides
	// provider's names, by kind (Options.MaxOverrideSets).
	maxOverrideSets int

	mu           sync.RWMutex
	sets         map[setKey]*attrSet // attribute sets, made once each, by the key of their values (see set)
	overrideSets [3]int
	stores       map[string]*storeState
	memory       memusage.Stores
}

type setKey struct {
	kind          uint8 // 0 requests, 1 latency, 2 time in queue
	policy, limit string
	result        string
	store         string
	source        core.Source
}

// attrSet is an attribute set as the options of Add and Record, made once:
// a variadic option passed as one value would be a slice made, and
// escaping through the instrument's interface, at every measurement.
type attrSet struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

type storeState struct {
	attrs        metric.MeasurementOption
	up, fallback int64
	// down and fallbacks are the stores of the kind (by
	// core.StoreEvent.Instance) unreachable, and of those deciding on
	// their fallback: up and fallback report the worst of them.
	down, fallbacks map[uint64]bool
}

// New returns an Observer recording with opts.MeterProvider's meter. A
// provider has one Observer: New on a provider it has made one for already
// (New per limiter, or two components on the global provider) returns
// that one when opts are the same (the defaults spelled out or not), and
// refuses others (wrapping core.ErrInvalidConfig): two Observers would
// each observe the store and memory gauges, of which the SDK exports one
// observation per attribute set, the last (an outage one of them was told
// of hidden by the other), and each bound the names and override sets
// alone. (A provider that is not a pointer, such as noop's, is not held.)
// An Observer made on otel's global provider before otel.SetMeterProvider
// records with the provider set then, and is the one New gives for it.
func New(opts Options) (*Observer, error) {
	mp := opts.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	} else if isnil.Value(mp) {
		return nil, fmt.Errorf("otelobserve: nil %T: %w", mp, core.ErrInvalidConfig)
	}
	if opts.MaxPolicies < 0 {
		return nil, fmt.Errorf("otelobserve: MaxPolicies %d: want 0 (the default) or more: %w", opts.MaxPolicies, core.ErrInvalidConfig)
	}
	if opts.MaxPolicies == 0 {
		opts.MaxPolicies = DefaultMaxPolicies
	}
	if opts.MaxOverrideSets < 0 {
		return nil, fmt.Errorf("otelobserve: MaxOverrideSets %d: want 0 (the default) or more: %w", opts.MaxOverrideSets, core.ErrInvalidConfig)
	}
	if opts.MaxOverrideSets == 0 {
		opts.MaxOverrideSets = DefaultMaxOverrideSets
	}
	if opts.Buckets == nil {
		opts.Buckets = DefaultBuckets
	}
	opts.Buckets = slices.Clone(opts.Buckets)
	return recording(mp, opts, func() (*Observer, error) { return newObserver(mp, opts) })
}

// newObserver returns a new Observer recording with mp, of opts (their
// defaults set).
func newObserver(mp metric.MeterProvider, opts Options) (*Observer, error) {
	buckets := opts.Buckets
	m := mp.Meter(ScopeName)
	o := &Observer{opts: opts, noSpans: opts.NoSpans, bounds: labelcap.NewBounds(opts.MaxPolicies),
		maxOverrideSets: opts.MaxOverrideSets, sets: map[setKey]*attrSet{}, stores: map[string]*storeState{}}
	var errs [8]error
	var up, fb, keys, keyLimit metric.Int64ObservableGauge
	o.requests, errs[0] = m.Int64Counter("floodgate.rate_limiting.requests", metric.WithUnit("{request}"),
		metric.WithDescription("Number of requests that were decided by a rate limiter."))
	o.queue, errs[1] = m.Float64Histogram("floodgate.rate_limiting.request.time_in_queue", metric.WithUnit("s"),
		metric.WithDescription("The delay an admitted request must wait before it proceeds (shaping)."),
		metric.WithExplicitBucketBoundaries(buckets...))
	o.latency, errs[2] = m.Float64Histogram("floodgate.rate_limiting.store.duration", metric.WithUnit("s"),
		metric.WithDescription("The time a store took to decide (not measured for the in-memory store)."),
		metric.WithExplicitBucketBoundaries(buckets...))
	o.changes, errs[3] = m.Int64Counter("floodgate.rate_limiting.store.changes", metric.WithUnit("{change}"),
		metric.WithDescription("Changes of a store's state."))
	up, errs[4] = m.Int64ObservableGauge("floodgate.rate_limiting.store.up", metric.WithUnit("1"),
		metric.WithDescription("1 while the store decides on its backend, 0 while it is unreachable."))
	fb, errs[5] = m.Int64ObservableGauge("floodgate.rate_limiting.store.fallback", metric.WithUnit("1"),
		metric.WithDescription("1 while the store's fallback (fail-open or a local limiter) decides."))
	keys, errs[6] = m.Int64ObservableGauge("floodgate.rate_limiting.memory.key_count", metric.WithUnit("{key}"),
		metric.WithDescription("Keys the in-memory store holds for a policy, recovered or not yet swept."))
	keyLimit, errs[7] = m.Int64ObservableGauge("floodgate.rate_limiting.memory.key_limit", metric.WithUnit("{key}"),
		metric.WithDescription("The most keys the in-memory store holds for a policy (its MaxKeys bound)."))
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("otelobserve: %w", err)
		}
	}
	_, err := m.RegisterCallback(func(_ context.Context, ob metric.Observer) error {
		o.mu.RLock()
		for _, s := range o.stores {
			ob.ObserveInt64(up, s.up, s.attrs)
			ob.ObserveInt64(fb, s.fallback, s.attrs)
		}
		o.mu.RUnlock()
		for _, u := range o.memory.ByPolicy(o.bounds.Table) {
			attrs := metric.WithAttributes(AttrPolicy.String(u.Policy))
			ob.ObserveInt64(keys, int64(u.Keys), attrs)
			ob.ObserveInt64(keyLimit, int64(u.MaxKeys), attrs)
		}
		return nil
	}, up, fb, keys, keyLimit)
	if err != nil {
		return nil, fmt.Errorf("otelobserve: %w", err)
	}
	return o, nil
}

// result is the result attribute of a verdict.
func result(v core.Verdict) string {
	switch v {
	case core.VerdictDenied:
		return ResultRejected
	case core.VerdictFailed:
		return ResultError
	case core.VerdictAbandoned:
		return ResultAbandoned
	}
	return ResultAcquired
}

// Decided counts d, records its store latency and shaping delay, and
// records it on ctx's span.
func (o *Observer) Decided(ctx context.Context, d core.Decision) {
	res := result(d.Verdict)
	o.requests.Add(ctx, 1, o.set(d.Override, setKey{kind: 0, policy: d.Policy, limit: d.LimitName, result: res, store: d.Store, source: d.Source}).add...)
	for _, name := range d.ShadowDenied {
		o.requests.Add(ctx, 1, o.set(d.Override, setKey{kind: 0, policy: d.Policy, limit: name, result: ResultShadowRejected, store: d.Store, source: d.Source}).add...)
	}
	if d.Latency > 0 {
		o.latency.Record(ctx, d.Latency.Seconds(), o.set(d.Override, setKey{kind: 1, store: d.Store, source: d.Source}).record...)
	}
	if d.Verdict == core.VerdictShaped {
		o.queue.Record(ctx, d.Delay.Seconds(), o.set(d.Override, setKey{kind: 2, policy: d.Policy, limit: d.LimitName, result: res}).record...)
	}
	if !o.noSpans {
		recordOnSpan(ctx, d, res)
	}
}

// set returns the attribute set of k, made at its first use. o.sets holds
// the keys of attribute values alone (o.bounds bounds their policy
// and limit), so that names
// beyond the bound add nothing to it; an override's decision that would
// make a set past o.maxOverrideSets is counted as Other (see overLocked).
func (o *Observer) set(override bool, k setKey) *attrSet {
	o.mu.RLock()
	s, ok := o.sets[k]
	o.mu.RUnlock()
	if ok {
		return s
	}
	if k.kind != 1 {
		k.policy, k.limit = o.bounds.Labels(override, k.policy, k.limit)
		o.mu.RLock()
		if s, ok = o.sets[k]; !ok && o.overLocked(override, k) {
			k.policy, k.limit = Other, Other
			s, ok = o.sets[k]
		}
		o.mu.RUnlock()
		if ok {
			return s
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if prev, ok := o.sets[k]; ok {
		return prev
	}
	if o.overLocked(override, k) {
		k.policy, k.limit = Other, Other // counted no more
		if prev, ok := o.sets[k]; ok {
			return prev
		}
	}
	var kv []attribute.KeyValue
	switch k.kind {
	case 0:
		kv = []attribute.KeyValue{AttrPolicy.String(text(k.policy)), AttrLimit.String(text(k.limit)), AttrResult.String(k.result),
			AttrStore.String(text(k.store)), AttrSource.String(k.source.String())}
	case 1:
		kv = []attribute.KeyValue{AttrStore.String(text(k.store)), AttrSource.String(k.source.String())}
	case 2:
		kv = []attribute.KeyValue{AttrPolicy.String(text(k.policy)), AttrLimit.String(text(k.limit)), AttrResult.String(k.result)}
	}
	opt := metric.WithAttributeSet(attribute.NewSet(kv...))
	s = &attrSet{add: []metric.AddOption{opt}, record: []metric.RecordOption{opt}}
	o.sets[k] = s
	if o.counted(override, k) {
		o.overrideSets[k.kind]++
	}
	if k.kind == 0 {
		o.seeLocked(k.store)
	}
	return s
}

// counted reports whether a new set of k, of an override's decision if
// override, counts towards o.maxOverrideSets: one naming a provider's
// names (not the latency's, nor the one the bounds made Other, policy and
// limit, bounded apart). A set of policy Other and a limit of its own
// counts: a provider may name a policy "(other)" itself, and its limit
// names would otherwise make sets without bound.
func (o *Observer) counted(override bool, k setKey) bool {
	return override && k.kind != 1 && (k.policy != Other || k.limit != Other)
}

// overLocked reports whether a new set of k, not in o.sets, would be one
// more than o.maxOverrideSets allows. o.mu is held (read or write).
func (o *Observer) overLocked(override bool, k setKey) bool {
	return o.counted(override, k) && o.overrideSets[k.kind] >= o.maxOverrideSets
}

// recordOnSpan records d on ctx's span, if it is recording.
func recordOnSpan(ctx context.Context, d core.Decision, res string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	kv := make([]attribute.KeyValue, 0, 6)
	kv = append(kv, AttrPolicy.String(text(d.Policy)), AttrLimit.String(text(d.LimitName)), AttrResult.String(res),
		AttrCost.Int64(d.Cost), AttrSource.String(d.Source.String()))
	if d.Verdict == core.VerdictDenied {
		kv = append(kv, AttrRetryAfter.Float64(d.RetryAfter.Seconds()))
	}
	ev := kv
	if len(d.ShadowDenied) > 0 {
		// On the event only: a span attribute would outlive its decision.
		ev = append(kv[:len(kv):len(kv)], AttrShadowRejected.StringSlice(texts(d.ShadowDenied)))
	}
	span.AddEvent(EventName, trace.WithAttributes(ev...))
	if d.Verdict != core.VerdictDenied {
		// The span's attributes are the last decision's: no retry-after
		// of an earlier rejection may stay.
		kv = append(kv, AttrRetryAfter.Float64(0))
	}
	span.SetAttributes(kv...)
}

// seeLocked makes the state of a store seen for the first time: up, no
// fallback.
func (o *Observer) seeLocked(store string) *storeState {
	s := o.stores[store]
	if s == nil {
		s = &storeState{attrs: metric.WithAttributeSet(attribute.NewSet(AttrStore.String(text(store)))), up: 1,
			down: map[uint64]bool{}, fallbacks: map[uint64]bool{}}
		o.stores[store] = s
	}
	return s
}

// StoreChanged counts e and updates the gauges of its store's kind: the
// worst of that kind's stores (core.StoreEvent.Instance tells them apart),
// so that one store coming back does not hide another still down.
func (o *Observer) StoreChanged(e core.StoreEvent) {
	o.mu.Lock()
	s := o.seeLocked(e.Store)
	switch e.Change {
	case core.StoreUnreachable:
		s.down[e.Instance], s.fallbacks[e.Instance] = true, e.Fallback
	case core.StoreReachable, core.StoreClosed:
		// (A closed store reports nothing more: its outage ends with it.)
		delete(s.down, e.Instance)
		delete(s.fallbacks, e.Instance)
	}
	s.up, s.fallback = 1, 0
	if len(s.down) > 0 {
		s.up = 0
	}
	for _, fb := range s.fallbacks {
		if fb {
			s.fallback = 1
		}
	}
	o.mu.Unlock()
	o.changes.Add(context.Background(), 1, metric.WithAttributes(AttrStore.String(text(e.Store)), AttrChange.String(e.Change.String())))
}

// WatchMemory adds m's tables to the memory.key_count and
// memory.key_limit gauges (tables of one policy name, in m or in several
// stores watched, are added together).
func (o *Observer) WatchMemory(m *core.MemoryStore) { o.memory.Watch(m) }

var _ core.Observer = (*Observer)(nil)

// text returns s as an attribute value every exporter accepts, and of a
// bounded length: valid UTF-8, each invalid byte sequence replaced by
// U+FFFD (OTLP's protobuf strings must be UTF-8: an export holding another
// fails), of at most [MaxAttrBytes] bytes (see labelcap.Value). A policy
// or limit name may come from anywhere (an Overrides provider naming
// policies after tenants).
func text(s string) string { return labelcap.Value(s) }

// MaxAttrBytes is the longest attribute value of a name: a longer name is
// written as its start, "…" and 16 hex digits of a hash of the whole.
const MaxAttrBytes = labelcap.MaxBytes

// texts is text for each of ss, ss itself when text changes none.
func texts(ss []string) []string {
	for i, s := range ss {
		if text(s) != s {
			out := append([]string(nil), ss...)
			for j := i; j < len(out); j++ {
				out[j] = text(out[j])
			}
			return out
		}
	}
	return ss
}
