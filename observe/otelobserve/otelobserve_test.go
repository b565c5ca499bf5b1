package otelobserve_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/observetest"
	"github.com/floodgate-go/floodgate/observe/otelobserve"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// newObserver returns an Observer recording into a manual reader.
func newObserver(t *testing.T) (*otelobserve.Observer, *sdkmetric.ManualReader) {
	t.Helper()
	o, reader, _ := observerWith(t, otelobserve.Options{Buckets: []float64{.001, .01, .1}})
	return o, reader
}

// observerWith returns an Observer of opts recording into a manual reader
// on a meter provider of its own, shut down when the test ends, and that
// provider.
func observerWith(t *testing.T, opts otelobserve.Options) (*otelobserve.Observer, *sdkmetric.ManualReader, *sdkmetric.MeterProvider) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	opts.MeterProvider = mp
	o, err := otelobserve.New(opts)
	require.NoError(t, err)
	return o, reader, mp
}

// collect reads every metric: name → its data, checking the scope.
func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.Collect(context.Background(), &rm))
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		require.Equal(t, otelobserve.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// key writes an attribute set as "k=v,…", the floodgate.rate_limiting.
// prefix dropped, sorted.
func key(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, strings.TrimPrefix(string(kv.Key), "floodgate.rate_limiting.")+"="+kv.Value.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// ints returns an int64 sum's or gauge's points by attributes.
func ints(t *testing.T, m metricdata.Metrics) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		assert.True(t, d.IsMonotonic, m.Name)
		for _, p := range d.DataPoints {
			out[key(p.Attributes)] = p.Value
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			out[key(p.Attributes)] = p.Value
		}
	default:
		t.Fatalf("%s: %T", m.Name, m.Data)
	}
	return out
}

// hists returns a histogram's points by attributes.
func hists(t *testing.T, m metricdata.Metrics) map[string]metricdata.HistogramDataPoint[float64] {
	t.Helper()
	d, ok := m.Data.(metricdata.Histogram[float64])
	require.True(t, ok, "%s: %T", m.Name, m.Data)
	out := map[string]metricdata.HistogramDataPoint[float64]{}
	for _, p := range d.DataPoints {
		out[key(p.Attributes)] = p
	}
	return out
}

func TestRequestsCounted(t *testing.T) {
	o, reader := newObserver(t)
	observetest.Drive(t, o, o.WatchMemory)

	got := collect(t, reader)
	m := got["floodgate.rate_limiting.requests"]
	assert.Equal(t, "{request}", m.Unit)
	assert.Equal(t, map[string]int64{
		"limit=burst,policy=api,result=acquired,source=store,store=memory": 3,
		"limit=burst,policy=api,result=rejected,source=store,store=memory": 3,
		"limit=,policy=api,result=error,source=store,store=memory":         1,
		"limit=q,policy=shape,result=acquired,source=store,store=memory":   3,
		// The shadow limit would have rejected 2 (never enforced).
		"limit=candidate,policy=api,result=shadow_rejected,source=store,store=memory": 2,
	}, ints(t, m))
	q := hists(t, got["floodgate.rate_limiting.request.time_in_queue"])
	require.Len(t, q, 1)
	p := q["limit=q,policy=shape,result=acquired"]
	assert.Equal(t, uint64(2), p.Count)
	assert.InDelta(t, 3.0, p.Sum, 1e-9)
	assert.Equal(t, "s", got["floodgate.rate_limiting.request.time_in_queue"].Unit)
	assert.NotContains(t, got, "floodgate.rate_limiting.store.duration", "the memory store's latency is not measured")
	assert.Equal(t, map[string]int64{"policy=api": 2, "policy=api/shadow:candidate": 2, "policy=shape": 1},
		ints(t, got["floodgate.rate_limiting.memory.key_count"]))
	assert.Equal(t, map[string]int64{"policy=api": 1000, "policy=api/shadow:candidate": 1000, "policy=shape": 1000},
		ints(t, got["floodgate.rate_limiting.memory.key_limit"]))
	assert.Equal(t, map[string]int64{"store=memory": 1}, ints(t, got["floodgate.rate_limiting.store.up"]))
	assert.Equal(t, map[string]int64{"store=memory": 0}, ints(t, got["floodgate.rate_limiting.store.fallback"]))
}

func TestStoreStates(t *testing.T) {
	ctx := context.Background()
	o, reader := newObserver(t)
	redis := func(src core.Source, lat time.Duration) core.Decision {
		return core.Decision{Policy: "p", LimitName: "l", Store: "redis", Source: src, Latency: lat}
	}
	o.Decided(ctx, redis(core.SourceStore, 2*time.Millisecond))
	o.Decided(ctx, redis(core.SourceStore, 20*time.Millisecond))
	o.Decided(ctx, redis(core.SourceCache, 5*time.Microsecond))
	got := collect(t, reader)
	lat := hists(t, got["floodgate.rate_limiting.store.duration"])
	p := lat["source=store,store=redis"]
	assert.Equal(t, uint64(2), p.Count)
	assert.InDelta(t, 0.022, p.Sum, 1e-9)
	assert.Equal(t, []float64{.001, .01, .1}, p.Bounds)
	assert.Equal(t, []uint64{0, 1, 1, 0}, p.BucketCounts)
	assert.Equal(t, uint64(1), lat["source=cache,store=redis"].Count)
	assert.Equal(t, map[string]int64{"store=redis": 1}, ints(t, got["floodgate.rate_limiting.store.up"]))

	o.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreUnreachable, Mode: "local", Fallback: true, Err: errors.New("refused")})
	o.StoreChanged(core.StoreEvent{Store: "other", Change: core.StoreUnreachable, Mode: "fail-closed"})
	got = collect(t, reader)
	assert.Equal(t, map[string]int64{"store=redis": 0, "store=other": 0}, ints(t, got["floodgate.rate_limiting.store.up"]))
	assert.Equal(t, map[string]int64{"store=redis": 1, "store=other": 0}, ints(t, got["floodgate.rate_limiting.store.fallback"]))

	o.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreReachable, Mode: "local", Fallback: true})
	o.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreEvicting})
	got = collect(t, reader)
	assert.Equal(t, map[string]int64{"store=redis": 1, "store=other": 0}, ints(t, got["floodgate.rate_limiting.store.up"]))
	assert.Equal(t, map[string]int64{"store=redis": 0, "store=other": 0}, ints(t, got["floodgate.rate_limiting.store.fallback"]))
	assert.Equal(t, map[string]int64{
		"store.change=unreachable,store=redis": 1,
		"store.change=unreachable,store=other": 1,
		"store.change=reachable,store=redis":   1,
		"store.change=evicting,store=redis":    1,
	}, ints(t, got["floodgate.rate_limiting.store.changes"]))
}

// TestDecisionOnSpan: a decision made with a request's span in its
// context is recorded on that span, as an event per decision and as
// attributes holding the last; no span is started.
func TestDecisionOnSpan(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	o, _ := newObserver(t)
	clk := coretest.NewClock(coretest.T0)
	l, err := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(1), Burst: 1}}),
		core.WithClock(clk), core.WithObserver(o))
	require.NoError(t, err)

	ctx, span := tp.Tracer("test").Start(context.Background(), "GET /api")
	_, err = l.Allow(ctx, "secret-client")
	require.NoError(t, err)
	clk.Advance(15 * time.Second)
	_, err = l.Allow(ctx, "secret-client")
	require.NoError(t, err)
	span.End()
	_, err = l.Allow(context.Background(), "secret-client") // no span: nothing recorded, nothing started

	require.NoError(t, err)
	ended := sr.Ended()
	require.Len(t, ended, 1, "no span of floodgate's own")
	s := ended[0]
	require.Len(t, s.Events(), 2)
	for _, e := range s.Events() {
		assert.Equal(t, otelobserve.EventName, e.Name)
	}
	assert.Equal(t, "cost=1,limit=minute,policy=api,result=acquired,source=store", key(attribute.NewSet(s.Events()[0].Attributes...)))
	assert.Equal(t, "cost=1,limit=minute,policy=api,result=rejected,retry_after=45,source=store",
		key(attribute.NewSet(s.Events()[1].Attributes...)))
	assert.Equal(t, "cost=1,limit=minute,policy=api,result=rejected,retry_after=45,source=store",
		key(attribute.NewSet(s.Attributes()...)), "the span's attributes are the last decision's")
	assert.NotContains(t, key(attribute.NewSet(s.Attributes()...)), "secret")
}

// TestNoSpans: Options.NoSpans leaves spans alone.
func TestNoSpans(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	o, err := otelobserve.New(otelobserve.Options{MeterProvider: sdkmetric.NewMeterProvider(), NoSpans: true})
	require.NoError(t, err)
	ctx, span := tp.Tracer("test").Start(context.Background(), "req")
	o.Decided(ctx, core.Decision{Policy: "p", Verdict: core.VerdictDenied, RetryAfter: time.Second})
	span.End()
	require.Len(t, sr.Ended(), 1)
	assert.Empty(t, sr.Ended()[0].Events())
	assert.Empty(t, sr.Ended()[0].Attributes())
}

// TestGlobalMeterProvider: without a MeterProvider the global one is used
// (a no-op until the application sets one): New works, and so do decisions.
func TestGlobalMeterProvider(t *testing.T) {
	o, err := otelobserve.New(otelobserve.Options{})
	require.NoError(t, err)
	o.Decided(context.Background(), core.Decision{Policy: "p"})
	o.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreUnreachable})
	o.WatchMemory(nil)
}

// TestShadowOnSpan: the shadow limits that would have rejected a request
// are on its decision's event.
func TestShadowOnSpan(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	o, _ := newObserver(t)
	l, err := core.NewLimiter(core.MustPolicy("api",
		core.Limit{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(5), Burst: 5}},
		core.Limit{Name: "strict", Algorithm: core.GCRA{Rate: core.PerMinute(1), Burst: 1}, Shadow: true}),
		core.WithClock(coretest.NewClock(coretest.T0)), core.WithObserver(o))
	require.NoError(t, err)
	ctx, span := tp.Tracer("test").Start(context.Background(), "GET /api")
	for range 2 {
		_, err = l.Allow(ctx, "k")
		require.NoError(t, err)
	}
	span.End()
	s := sr.Ended()[0]
	require.Len(t, s.Events(), 2)
	assert.Equal(t, "cost=1,limit=minute,policy=api,result=acquired,source=store", key(attribute.NewSet(s.Events()[0].Attributes...)))
	assert.Equal(t, "cost=1,limit=minute,policy=api,result=acquired,shadow_rejected=[\"strict\"],source=store",
		key(attribute.NewSet(s.Events()[1].Attributes...)))
	assert.Equal(t, "cost=1,limit=minute,policy=api,result=acquired,retry_after=0,source=store", key(attribute.NewSet(s.Attributes()...)))
}

// TestDecidedAllocatesNothing: a decision of an attribute set seen before,
// its shadow rejection, store latency and time in queue, recorded into
// the SDK without a span, allocates nothing (the options are made once
// per set: passed one by one, each measurement made a slice).
func TestDecidedAllocatesNothing(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	o, _ := newObserver(t)
	d := core.Decision{Policy: "p", LimitName: "l", Store: "redis", Latency: time.Millisecond,
		Verdict: core.VerdictShaped, Delay: time.Millisecond, ShadowDenied: []string{"s"}}
	o.Decided(context.Background(), d) // the sets' first use: makes them
	assert.Zero(t, testing.AllocsPerRun(100, func() { o.Decided(context.Background(), d) }))
}

// Every attribute value is valid UTF-8, whatever the policy, limit and
// store names: OTLP's protobuf strings must be UTF-8, so an export holding
// a name such as "tenant-\xff" (an Overrides provider naming policies
// after tenants) failed as a whole. Before, the names were recorded as
// they came; now each invalid byte sequence is U+FFFD, on the metrics and
// on the span's event alike, and nothing panics.
func TestAttackInvalidUTF8AttributesAreSanitised(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	o, reader := newObserver(t)
	ctx, span := tp.Tracer("test").Start(context.Background(), "GET /api")
	require.NotPanics(t, func() {
		o.Decided(ctx, core.Decision{Policy: "tenant-\xff", LimitName: "minute\xfe", Store: "store\xff",
			Latency: time.Millisecond, Verdict: core.VerdictDenied, ShadowDenied: []string{"shadow\xff"}})
		o.StoreChanged(core.StoreEvent{Store: "other\xff", Change: core.StoreUnreachable})
	})
	span.End()
	var all []string
	for _, m := range collect(t, reader) {
		switch d := m.Data.(type) {
		case metricdata.Sum[int64]:
			for _, p := range d.DataPoints {
				all = append(all, key(p.Attributes))
			}
		case metricdata.Gauge[int64]:
			for _, p := range d.DataPoints {
				all = append(all, key(p.Attributes))
			}
		case metricdata.Histogram[float64]:
			for _, p := range d.DataPoints {
				all = append(all, key(p.Attributes))
			}
		}
	}
	ended := sr.Ended()
	require.Len(t, ended, 1)
	for _, e := range ended[0].Events() {
		all = append(all, key(attribute.NewSet(e.Attributes...)))
	}
	all = append(all, key(attribute.NewSet(ended[0].Attributes()...)))
	text := strings.Join(all, "\n")
	assert.True(t, utf8.ValidString(text), "%q", text)
	for _, want := range []string{"tenant-\uFFFD", "minute\uFFFD", "store\uFFFD", "shadow\uFFFD", "other\uFFFD"} {
		assert.Contains(t, text, want)
	}
}

// A typed-nil MeterProvider is refused with an error; it panicked in New
// (found by a review). A nil one means the global provider.
func TestNewRefusesTypedNilMeterProvider(t *testing.T) {
	t.Parallel()
	_, err := otelobserve.New(otelobserve.Options{MeterProvider: (*sdkmetric.MeterProvider)(nil)})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = otelobserve.New(otelobserve.Options{})
	require.NoError(t, err)
}

// TestStoresOfOneKindApart: two Redis stores (instances 1 and 2) report to
// one observer; A goes down, then B, then A comes back. The gauges of the
// kind report the worst store: still down, B's fallback deciding (before
// the instances were told apart: up 1, fallback 0 while B was down).
func TestStoresOfOneKindApart(t *testing.T) {
	o, r := newObserver(t)
	ev := func(instance uint64, c core.StoreChange) core.StoreEvent {
		return core.StoreEvent{Store: "redis", Instance: instance, Change: c, Mode: "local", Fallback: true}
	}
	o.StoreChanged(ev(1, core.StoreUnreachable))
	o.StoreChanged(ev(2, core.StoreUnreachable))
	o.StoreChanged(ev(1, core.StoreReachable))
	got := collect(t, r)
	assert.Equal(t, map[string]int64{"store=redis": 0}, ints(t, got["floodgate.rate_limiting.store.up"]))
	assert.Equal(t, map[string]int64{"store=redis": 1}, ints(t, got["floodgate.rate_limiting.store.fallback"]))
	o.StoreChanged(ev(2, core.StoreReachable))
	got = collect(t, r)
	assert.Equal(t, map[string]int64{"store=redis": 1}, ints(t, got["floodgate.rate_limiting.store.up"]))
	assert.Equal(t, map[string]int64{"store=redis": 0}, ints(t, got["floodgate.rate_limiting.store.fallback"]))
}

// TestClosedStoreForgotten: a store closed while down (instance 1) no
// longer holds the kind's gauges down once it says so.
func TestClosedStoreForgotten(t *testing.T) {
	o, r := newObserver(t)
	o.StoreChanged(core.StoreEvent{Store: "redis", Instance: 1, Change: core.StoreUnreachable, Mode: "local", Fallback: true})
	got := collect(t, r)
	assert.Equal(t, map[string]int64{"store=redis": 0}, ints(t, got["floodgate.rate_limiting.store.up"]))
	o.StoreChanged(core.StoreEvent{Store: "redis", Instance: 1, Change: core.StoreClosed})
	got = collect(t, r)
	assert.Equal(t, map[string]int64{"store=redis": 1}, ints(t, got["floodgate.rate_limiting.store.up"]))
	assert.Equal(t, map[string]int64{"store=redis": 0}, ints(t, got["floodgate.rate_limiting.store.fallback"]))
}

// TestAbandonedCounted: a take whose caller went away while the store
// decided it is counted with result "abandoned", apart from the errors.
func TestAbandonedCounted(t *testing.T) {
	o, reader := newObserver(t)
	o.Decided(context.Background(), core.Decision{Policy: "api", Limit: -1, Verdict: core.VerdictAbandoned, Store: "redis",
		Err: context.Canceled})
	assert.Equal(t, map[string]int64{"limit=,policy=api,result=abandoned,source=store,store=redis": 1},
		ints(t, collect(t, reader)["floodgate.rate_limiting.requests"]))
}
