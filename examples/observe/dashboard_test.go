package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The parts of a Grafana dashboard the test checks.
type (
	grafanaDashboard struct {
		UID           string         `json:"uid"`
		Title         string         `json:"title"`
		SchemaVersion int            `json:"schemaVersion"`
		Panels        []grafanaPanel `json:"panels"`
		Templating    struct {
			List []grafanaVariable `json:"list"`
		} `json:"templating"`
	}
	grafanaPanel struct {
		ID         int                `json:"id"`
		Type       string             `json:"type"`
		Title      string             `json:"title"`
		Datasource *grafanaDatasource `json:"datasource"`
		GridPos    struct{ X, Y, W, H int }
		Targets    []grafanaTarget `json:"targets"`
		Panels     []grafanaPanel  `json:"panels"` // a collapsed row's
	}
	grafanaTarget struct {
		Expr         string             `json:"expr"`
		LegendFormat string             `json:"legendFormat"`
		RefID        string             `json:"refId"`
		Datasource   *grafanaDatasource `json:"datasource"`
	}
	grafanaDatasource struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	}
	grafanaVariable struct {
		Name       string `json:"name"`
		Type       string `json:"type"`
		Query      any    `json:"query"`
		Definition string `json:"definition"`
	}
)

// TestDashboard: grafana/floodgate.json is a dashboard whose every query
// refers to metrics and labels the exporter really emits, as scraped from
// the example on the in-memory store and on a Redis store through an
// outage (so that every family exists: the latency histogram, the store
// changes and the fallback gauge too).
func TestDashboard(t *testing.T) {
	raw, err := os.ReadFile("grafana/floodgate.json")
	require.NoError(t, err)
	require.True(t, json.Valid(raw))
	var d grafanaDashboard
	require.NoError(t, json.Unmarshal(raw, &d))
	require.NotEmpty(t, d.UID)
	require.NotEmpty(t, d.Title)
	require.Positive(t, d.SchemaVersion)

	fams := map[string]*dto.MetricFamily{}
	t.Run("memory", func(t *testing.T) { merge(fams, memoryScrape(t)) })
	t.Run("redis", func(t *testing.T) { merge(fams, redisOutageScrape(t)) })
	require.False(t, t.Failed())
	for _, name := range []string{"floodgate_decisions_total", "floodgate_store_latency_seconds", "floodgate_store_up",
		"floodgate_store_fallback", "floodgate_store_slow", "floodgate_store_changes_total", "floodgate_memory_keys",
		"floodgate_memory_max_keys"} {
		require.Contains(t, fams, name, "every family of promobserve's documentation was scraped")
	}

	vars := map[string]grafanaVariable{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v
	}
	require.Equal(t, "datasource", vars["datasource"].Type)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := regexp.MustCompile(`^label_values\((\w+), *(\w+)\)$`).FindStringSubmatch(v.Definition)
		require.NotNil(t, m, "variable %s: %q", v.Name, v.Definition)
		assert.Contains(t, labelNames(fams[m[1]]), m[2], "variable %s", v.Name)
		assert.Equal(t, map[string]any{"query": v.Definition, "refId": v.Name}, v.Query, "variable %s", v.Name)
	}

	ids := map[int]bool{}
	queries := 0
	var check func(p grafanaPanel)
	check = func(p grafanaPanel) {
		assert.False(t, ids[p.ID], "panel id %d twice", p.ID)
		ids[p.ID] = true
		assert.NotEmpty(t, p.Title, "panel %d", p.ID)
		assert.True(t, p.GridPos.W > 0 && p.GridPos.X+p.GridPos.W <= 24 && p.GridPos.H > 0, "panel %q: grid %+v", p.Title, p.GridPos)
		for _, c := range p.Panels {
			check(c)
		}
		if p.Type == "row" {
			return
		}
		require.NotNil(t, p.Datasource, p.Title)
		assert.Equal(t, grafanaDatasource{Type: "prometheus", UID: "${datasource}"}, *p.Datasource, p.Title)
		assert.NotEmpty(t, p.Targets, p.Title)
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			queries++
			assert.False(t, refs[tg.RefID], "%s: refId %q twice", p.Title, tg.RefID)
			refs[tg.RefID] = true
			if assert.NotNil(t, tg.Datasource, p.Title) {
				assert.Equal(t, *p.Datasource, *tg.Datasource, p.Title)
			}
			labels, problems := queryProblems(fams, tg.Expr)
			assert.Empty(t, problems, tg.Expr)
			for _, m := range regexp.MustCompile(`\{\{ *(\w+) *\}\}`).FindAllStringSubmatch(tg.LegendFormat, -1) {
				assert.Contains(t, labels, m[1], "%s: the legend's label", tg.Expr)
			}
		}
	}
	for _, p := range d.Panels {
		check(p)
	}
	assert.Positive(t, queries)
}

// queryProblems lists what in expr is not in the families scraped
// (metrics, labels), and returns the labels of the families it refers to.
func queryProblems(fams map[string]*dto.MetricFamily, expr string) (labels, problems []string) {
	metrics, used, err := queryRefs(expr)
	if err != nil {
		return nil, []string{err.Error()}
	}
	if len(metrics) == 0 {
		problems = append(problems, "no metric")
	}
	known := map[string]bool{}
	for _, m := range metrics {
		f, series := family(fams, m)
		if f == nil {
			problems = append(problems, "no family "+m+" is scraped")
			continue
		}
		for _, l := range labelNames(f) {
			known[l] = true
		}
		if series == "_bucket" {
			known["le"] = true
		}
	}
	labels = slices.Sorted(maps.Keys(known))
	for _, l := range used {
		if !known[l] {
			problems = append(problems, fmt.Sprintf("label %s is not one of %v", l, labels))
		}
	}
	return labels, problems
}

// family returns the family a series name belongs to, and the suffix of
// a histogram's or summary's series ("_bucket", "_sum", "_count").
func family(fams map[string]*dto.MetricFamily, name string) (*dto.MetricFamily, string) {
	if f := fams[name]; f != nil {
		return f, ""
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		f := fams[base]
		if !ok || f == nil {
			continue
		}
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM:
			return f, suffix
		case dto.MetricType_SUMMARY:
			if suffix != "_bucket" {
				return f, suffix
			}
		}
	}
	return nil, ""
}

func merge(dst, src map[string]*dto.MetricFamily) {
	for name, f := range src {
		if g, ok := dst[name]; ok {
			g.Metric = append(g.Metric, f.Metric...)
			continue
		}
		dst[name] = f
	}
}

// memoryScrape loads the example on the in-memory store and scrapes it.
func memoryScrape(t *testing.T) map[string]*dto.MetricFamily {
	base, _ := start(t, config{Server: serverConfig{MaxKeys: 1_000, TrustedProxies: []string{"127.0.0.1"}, Clock: coretest.NewClock(coretest.T0)}})
	tl, err := generate(context.Background(), client, loadConfig{Target: base, Requests: 400, Clients: 50, Workers: 2})
	require.NoError(t, err)
	fams := scrape(t, base)
	assert.Equal(t, byPolicy(t, tl), scraped(fams))
	return fams
}

// redisOutageScrape loads the example on a Redis store, cuts Redis off
// until the store reports it unreachable, and scrapes it: the decisions
// still match the answers, and the store's gauges show the fallback.
func redisOutageScrape(t *testing.T) map[string]*dto.MetricFamily {
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	base, _ := start(t, config{Server: serverConfig{Redis: p.Addr(), FleetSize: 1, TrustedProxies: []string{"127.0.0.1"}}})
	ctx := context.Background()
	lc := loadConfig{Target: base, Requests: 400, Clients: 50, Workers: 4}
	tl, err := generate(ctx, client, lc)
	require.NoError(t, err)
	fams := scrape(t, base)
	assert.Equal(t, byPolicy(t, tl), scraped(fams))
	var latency uint64
	for _, m := range fams["floodgate_store_latency_seconds"].GetMetric() {
		latency += m.GetHistogram().GetSampleCount()
	}
	assert.Positive(t, latency, "the Redis store's decisions are timed")

	p.Refuse(true)
	p.Drop()
	lc.Requests = 20
	for round := 0; ; round++ {
		require.Less(t, round, 20, "the store reports Redis unreachable within 400 requests")
		more, err := generate(ctx, client, lc)
		require.NoError(t, err)
		for o, n := range more {
			tl[o] += n
		}
		fams = scrape(t, base)
		if sum(fams, "floodgate_store_up", map[string]string{"store": "redis"}) == 0 {
			break
		}
	}
	assert.Equal(t, byPolicy(t, tl), scraped(fams), "the fallback's decisions are counted too")
	assert.Equal(t, float64(1), sum(fams, "floodgate_store_fallback", map[string]string{"store": "redis"}))
	assert.Positive(t, sum(fams, "floodgate_store_changes_total", map[string]string{"store": "redis", "change": "unreachable"}))
	return fams
}

// An expression naming a metric the exporter does not emit, or a label
// it does not have, is refused.
func TestQueryProblems(t *testing.T) {
	fams := memoryScrape(t)
	for expr, want := range map[string]string{
		`rate(floodgate_decision_total[5m])`:                      "no family floodgate_decision_total is scraped",
		`sum by (tenant) (rate(floodgate_decisions_total[5m]))`:   "label tenant is not one of",
		`floodgate_decisions_total{le="1"}`:                       "label le is not one of",
		`floodgate_memory_keys_bucket`:                            "no family floodgate_memory_keys_bucket is scraped",
		`floodgate_decisions_total(x)`:                            "not a PromQL function",
		`histogram_quantile(0.5, rate(floodgate_store_slow[1m]))`: "",
	} {
		_, problems := queryProblems(fams, expr)
		if want == "" {
			assert.Empty(t, problems, expr)
			continue
		}
		if assert.Len(t, problems, 1, expr) {
			assert.Contains(t, problems[0], want, expr)
		}
	}
	labels, problems := queryProblems(fams, `sum by (policy, limit) (floodgate_decisions_total)`)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"limit", "policy", "result", "source", "store"}, labels)
}
