package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// client bounds every request of the tests (a bound never reached).
var client = &http.Client{Timeout: 30 * time.Second}

// start runs the command with cfg on a free port until the test ends, and
// returns its base URL and the rest of its output, line by line.
func start(t *testing.T, cfg config) (string, *bufio.Reader) {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, pw)
		_ = pw.Close()
	}()
	out := bufio.NewReader(pr)
	t.Cleanup(func() {
		// Connections the client dialed but never used are new to the
		// server, which waits for them at shutdown: close them first.
		client.CloseIdleConnections()
		cancel()
		go func() { _, _ = io.Copy(io.Discard, pr) }()
		require.NoError(t, within.Recv(t, done, "the command's end after its context"))
	})
	line, err := within.Line(t, out, "the command's listening line")
	require.NoError(t, err)
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	require.True(t, ok, line)
	return "http://" + addr, out
}

// scrape reads base's /metrics with Prometheus' text parser.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain"), resp.Header.Get("Content-Type"))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fams
}

// sum adds the values of family name's series whose labels include
// every pair of want.
func sum(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	var s float64
	for _, m := range fams[name].GetMetric() {
		match := 0
		for _, l := range m.GetLabel() {
			if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
				match++
			}
		}
		if match < len(want) {
			continue
		}
		switch {
		case m.Counter != nil:
			s += m.GetCounter().GetValue()
		case m.Gauge != nil:
			s += m.GetGauge().GetValue()
		}
	}
	return s
}

// byPolicy is what the HTTP answers of a load say each policy decided:
// policy → result → count.
func byPolicy(t *testing.T, tl tally) map[string]map[string]float64 {
	t.Helper()
	policy := map[string]string{kindItems: "api", kindGreedyItems: "api", kindSearch: "search", kindLogin: "login", kindGuess: "login"}
	out := map[string]map[string]float64{}
	for o, n := range tl {
		p := policy[o.kind]
		require.NotEmpty(t, p, o.kind)
		var result string
		switch o.status {
		case http.StatusOK, http.StatusUnauthorized: // a wrong password was admitted, and counted
			result = "allowed"
		case http.StatusTooManyRequests:
			result = "denied"
		case http.StatusServiceUnavailable:
			result = "error"
		default:
			require.Failf(t, "unexpected status", "%s: %d", o.kind, o.status)
		}
		if out[p] == nil {
			out[p] = map[string]float64{}
		}
		out[p][result] += float64(n)
	}
	return out
}

// scraped is what the metrics say each policy decided.
func scraped(fams map[string]*dto.MetricFamily) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, m := range fams["floodgate_decisions_total"].GetMetric() {
		var p, r string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "policy":
				p = l.GetValue()
			case "result":
				r = l.GetValue()
			}
		}
		if out[p] == nil {
			out[p] = map[string]float64{}
		}
		out[p][r] += m.GetCounter().GetValue()
	}
	return out
}

// TestLoadScraped runs the server on a stopped clock, drives a bounded
// load at it from many addresses, and reads the decisions back from
// /metrics: they are the HTTP answers, exactly, and (the clock standing
// still, nothing refills) each address got exactly its burst.
func TestLoadScraped(t *testing.T) {
	const maxKeys = 5_000
	clk := coretest.NewClock(coretest.T0)
	base, _ := start(t, config{Server: serverConfig{MaxKeys: maxKeys, TrustedProxies: []string{"127.0.0.1"}, Clock: clk}})
	lc := loadConfig{Target: base, Requests: 2_000, Clients: 300, Workers: 4}
	tl, err := generate(context.Background(), client, lc)
	require.NoError(t, err)
	fams := scrape(t, base)

	got := scraped(fams)
	assert.Equal(t, byPolicy(t, tl), got, "the metrics count what the clients were answered (%s)", tl)

	// The model: per address (and route), the burst at most; polite
	// logins are never counted (CountIf refunds them).
	sent := map[string]map[string]int{} // policy → address → requests
	add := func(policy, addr string) {
		if sent[policy] == nil {
			sent[policy] = map[string]int{}
		}
		sent[policy][addr]++
	}
	logins := 0
	for i := range lc.Requests {
		switch p := plan(i, lc.Clients); p.kind {
		case kindItems, kindGreedyItems:
			add("api", p.addr)
		case kindSearch:
			add("search", p.addr)
		case kindGuess:
			add("login", p.addr)
		case kindLogin:
			logins++
		}
	}
	admitted := func(policy string, burst int) float64 {
		n := 0
		for _, c := range sent[policy] {
			n += min(c, burst)
		}
		return float64(n)
	}
	assert.Equal(t, admitted("api", 10), got["api"]["allowed"])
	assert.Equal(t, admitted("search", 3), got["search"]["allowed"])
	assert.Equal(t, admitted("login", 5)+float64(logins), got["login"]["allowed"])
	for _, p := range []string{"api", "search", "login"} {
		assert.Positive(t, got[p]["denied"], p)
	}
	// The search burst (3) binds long before its hourly quota (100).
	assert.Equal(t, got["search"]["denied"], sum(fams, "floodgate_decisions_total", map[string]string{"policy": "search", "limit": "burst", "result": "denied"}))

	// Nothing recovers on a stopped clock: the api and search tables hold
	// one key per address (and route).
	assert.Equal(t, float64(len(sent["api"])), sum(fams, "floodgate_memory_keys", map[string]string{"policy": "api"}))
	assert.Equal(t, float64(len(sent["search"])), sum(fams, "floodgate_memory_keys", map[string]string{"policy": "search"}))
	for _, p := range []string{"api", "search", "login"} {
		bound := sum(fams, "floodgate_memory_max_keys", map[string]string{"policy": p})
		assert.Positive(t, bound, p)
		assert.LessOrEqual(t, bound, float64(maxKeys), p)
	}
	assert.Equal(t, float64(1), sum(fams, "floodgate_store_up", map[string]string{"store": "memory"}))
	assert.Equal(t, float64(0), sum(fams, "floodgate_store_fallback", map[string]string{"store": "memory"}))
}

// TestLoadFlag: -load with -requests drives that many requests at the
// server itself and prints what they got.
func TestLoadFlag(t *testing.T) {
	base, out := start(t, config{
		Server: serverConfig{MaxKeys: 1_000, TrustedProxies: []string{"127.0.0.1"}, Clock: coretest.NewClock(coretest.T0)},
		Load:   &loadConfig{Requests: 400, Clients: 50, Workers: 2},
	})
	line, err := within.Line(t, out, "the load's summary line")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "load done: "), line)
	assert.Contains(t, line, "greedy-items 429: 40,", "4 greedy addresses, 20 requests each, a burst of 10")
	var total float64
	for _, byResult := range scraped(scrape(t, base)) {
		for _, n := range byResult {
			total += n
		}
	}
	assert.Equal(t, float64(400), total)
}

// TestUntrustedForwardedFor: without the loopback among the trusted
// proxies, the load's X-Forwarded-For is ignored and every request is one
// client's.
func TestUntrustedForwardedFor(t *testing.T) {
	base, _ := start(t, config{Server: serverConfig{MaxKeys: 1_000, Clock: coretest.NewClock(coretest.T0)}})
	_, err := generate(context.Background(), client, loadConfig{Target: base, Requests: 200, Clients: 50, Workers: 2})
	require.NoError(t, err)
	fams := scrape(t, base)
	assert.Equal(t, float64(1), sum(fams, "floodgate_memory_keys", map[string]string{"policy": "api"}))
	assert.Equal(t, float64(10), sum(fams, "floodgate_decisions_total", map[string]string{"policy": "api", "result": "allowed"}))
}

func TestBadConfig(t *testing.T) {
	for name, cfg := range map[string]config{
		"proxy":   {Server: serverConfig{TrustedProxies: []string{"not-a-network"}}},
		"clients": {Load: &loadConfig{Clients: 0, Workers: 1}},
		"workers": {Load: &loadConfig{Clients: 1, Workers: 0}},
		"keys":    {Server: serverConfig{MaxKeys: -1}},
	} {
		cfg.Addr = "127.0.0.1:0"
		assert.Error(t, run(context.Background(), cfg, io.Discard), name)
	}
}

// labelNames lists the label names of a family's series.
func labelNames(f *dto.MetricFamily) []string {
	seen := map[string]bool{}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			seen[l.GetName()] = true
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
