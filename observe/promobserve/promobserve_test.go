package promobserve_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/observetest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scrape fetches reg's metrics over HTTP, as Prometheus does, and parses
// the text format.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := (&http.Client{Timeout: within.Bound}).Do(req) // a collector that never returns fails the test
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain"), resp.Header.Get("Content-Type"))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fams
}

// series returns the metrics of family name as "label=value,…" → metric.
func series(fams map[string]*dto.MetricFamily, name string) map[string]*dto.Metric {
	out := map[string]*dto.Metric{}
	f := fams[name]
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		sort.Strings(ls)
		out[strings.Join(ls, ",")] = m
	}
	return out
}

// values returns the counter or gauge values of family name by labels.
func values(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	for k, m := range series(fams, name) {
		switch {
		case m.Counter != nil:
			out[k] = m.Counter.GetValue()
		case m.Gauge != nil:
			out[k] = m.Gauge.GetValue()
		}
	}
	return out
}

func TestDecisionsScraped(t *testing.T) {
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, promobserve.Options{})
	require.NoError(t, err)
	observetest.Drive(t, obs, obs.WatchMemory)

	fams := scrape(t, reg)
	assert.Equal(t, map[string]float64{
		"limit=burst,policy=api,result=allowed,source=store,store=memory": 3,
		"limit=burst,policy=api,result=denied,source=store,store=memory":  3,
		"limit=,policy=api,result=error,source=store,store=memory":        1,
		// The shadow limit would have denied 2 (never enforced).
		"limit=candidate,policy=api,result=shadow_denied,source=store,store=memory": 2,
		"limit=q,policy=shape,result=allowed,source=store,store=memory":             1,
		"limit=q,policy=shape,result=shaped,source=store,store=memory":              2,
	}, values(fams, "floodgate_decisions_total"))
	assert.Equal(t, dto.MetricType_COUNTER, fams["floodgate_decisions_total"].GetType())
	assert.Equal(t, map[string]float64{"policy=api": 2, "policy=api/shadow:candidate": 2, "policy=shape": 1}, values(fams, "floodgate_memory_keys"))
	assert.Equal(t, map[string]float64{"policy=api": 1000, "policy=api/shadow:candidate": 1000, "policy=shape": 1000},
		values(fams, "floodgate_memory_max_keys"))
	assert.Equal(t, map[string]float64{"store=memory": 1}, values(fams, "floodgate_store_up"))
	assert.Equal(t, map[string]float64{"store=memory": 0}, values(fams, "floodgate_store_fallback"))
	assert.Empty(t, series(fams, "floodgate_store_latency_seconds"), "the memory store's latency is not measured")
	for name := range fams {
		assert.NotContains(t, fmt.Sprint(fams[name]), "client", "no key in any metric")
	}
}

func TestStoreStatesScraped(t *testing.T) {
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, promobserve.Options{Namespace: "rl", Buckets: []float64{.001, .01, .1}})
	require.NoError(t, err)
	ctx := context.Background()
	redis := func(src core.Source, lat time.Duration) core.Decision {
		return core.Decision{Policy: "p", LimitName: "l", Store: "redis", Source: src, Latency: lat}
	}
	obs.Decided(ctx, redis(core.SourceStore, 2*time.Millisecond))
	obs.Decided(ctx, redis(core.SourceStore, 20*time.Millisecond))
	obs.Decided(ctx, redis(core.SourceCache, 5*time.Microsecond))
	fams := scrape(t, reg)
	assert.Equal(t, map[string]float64{"store=redis": 1}, values(fams, "rl_store_up"))
	h := series(fams, "rl_store_latency_seconds")
	require.Contains(t, h, "source=store,store=redis")
	hs := h["source=store,store=redis"].GetHistogram()
	assert.Equal(t, uint64(2), hs.GetSampleCount())
	assert.InDelta(t, 0.022, hs.GetSampleSum(), 1e-9)
	var cum []uint64
	for _, b := range hs.GetBucket() {
		cum = append(cum, b.GetCumulativeCount())
	}
	assert.Equal(t, []uint64{0, 1, 2, 2}, cum, "buckets .001, .01, .1, +Inf")
	assert.Equal(t, uint64(1), h["source=cache,store=redis"].GetHistogram().GetSampleCount())

	down := errors.New("connection refused")
	obs.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreUnreachable, Mode: "local", Fallback: true, Err: down})
	obs.Decided(ctx, redis(core.SourceFallback, time.Microsecond))
	fams = scrape(t, reg)
	assert.Equal(t, map[string]float64{"store=redis": 0}, values(fams, "rl_store_up"))
	assert.Equal(t, map[string]float64{"store=redis": 1}, values(fams, "rl_store_fallback"))
	assert.Equal(t, 1.0, values(fams, "rl_decisions_total")["limit=l,policy=p,result=allowed,source=fallback,store=redis"])

	obs.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreSlow})
	obs.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreReachable, Mode: "local", Fallback: true})
	obs.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreKeyConflict})
	fams = scrape(t, reg)
	assert.Equal(t, map[string]float64{"store=redis": 1}, values(fams, "rl_store_up"))
	assert.Equal(t, map[string]float64{"store=redis": 0}, values(fams, "rl_store_fallback"))
	assert.Equal(t, map[string]float64{"store=redis": 1}, values(fams, "rl_store_slow"))
	assert.Equal(t, map[string]float64{
		"change=unreachable,store=redis":  1,
		"change=slow,store=redis":         1,
		"change=reachable,store=redis":    1,
		"change=key-conflict,store=redis": 1,
	}, values(fams, "rl_store_changes_total"))

	// Failing closed is no fallback.
	obs.StoreChanged(core.StoreEvent{Store: "other", Change: core.StoreUnreachable, Mode: "fail-closed"})
	fams = scrape(t, reg)
	assert.Equal(t, 0.0, values(fams, "rl_store_fallback")["store=other"])
	assert.Equal(t, 0.0, values(fams, "rl_store_up")["store=other"])
}

func TestDecidedAllocatesNothing(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	obs, err := promobserve.New(prometheus.NewRegistry(), promobserve.Options{})
	require.NoError(t, err)
	d := core.Decision{Policy: "p", LimitName: "l", Store: "redis", Latency: time.Millisecond}
	obs.Decided(context.Background(), d) // the label set's first: makes its metrics
	assert.Zero(t, testing.AllocsPerRun(100, func() { obs.Decided(context.Background(), d) }))
}

func TestNewRefusesDuplicates(t *testing.T) {
	reg := prometheus.NewRegistry()
	_, err := promobserve.New(reg, promobserve.Options{})
	require.NoError(t, err)
	_, err = promobserve.New(reg, promobserve.Options{})
	require.Error(t, err, "the same metrics twice")
	_, err = promobserve.New(reg, promobserve.Options{Namespace: "other"})
	require.NoError(t, err)
	_, err = promobserve.New(nil, promobserve.Options{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	// A typed nil panicked in New (found by a review).
	_, err = promobserve.New((*prometheus.Registry)(nil), promobserve.Options{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}

// TestMemoryKeysSummedByPolicy: two stores' tables of one policy name are
// one series.
func TestMemoryKeysSummedByPolicy(t *testing.T) {
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, promobserve.Options{})
	require.NoError(t, err)
	var lims []*core.Limiter
	for range 2 {
		ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 64, Shards: 1})
		require.NoError(t, err)
		obs.WatchMemory(ms)
		obs.WatchMemory(ms) // twice: counted once
		l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 2}}),
			core.WithStore(ms), core.WithClock(coretest.NewClock(coretest.T0)))
		require.NoError(t, err)
		_, err = l.Allow(context.Background(), "k")
		require.NoError(t, err)
		lims = append(lims, l)
	}
	obs.WatchMemory(nil)
	fams := scrape(t, reg)
	assert.Equal(t, map[string]float64{"policy=p": 2}, values(fams, "floodgate_memory_keys"))
	assert.Equal(t, map[string]float64{"policy=p": 128}, values(fams, "floodgate_memory_max_keys"))
	assert.Len(t, lims, 2)
}

// No label value panics the observer: Prometheus panics on a label value
// that is not valid UTF-8, and a policy or limit name may come from
// anywhere (an Overrides provider naming policies after tenants). Before,
// the first decision of policy "tenant-\xff" panicked in WithLabelValues
// on the request's goroutine (through core.Limiter.Allow as well); now
// every label value is written with U+FFFD for each invalid byte sequence,
// and the metrics are scraped.
func TestAttackInvalidUTF8LabelsDoNotPanic(t *testing.T) {
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, promobserve.Options{})
	require.NoError(t, err)
	d := core.Decision{Policy: "tenant-\xff", LimitName: "minute\xfe", Store: "store\xff",
		Latency: time.Millisecond, ShadowDenied: []string{"shadow\xff"}}
	require.NotPanics(t, func() {
		obs.Decided(context.Background(), d)
		obs.StoreChanged(core.StoreEvent{Store: "other\xff", Change: core.StoreUnreachable})
	})
	families, err := reg.Gather()
	require.NoError(t, err)
	var values []string
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				values = append(values, l.GetValue())
			}
		}
	}
	for _, want := range []string{"tenant-\uFFFD", "minute\uFFFD", "store\uFFFD", "shadow\uFFFD", "other\uFFFD"} {
		assert.Contains(t, values, want)
	}
}
