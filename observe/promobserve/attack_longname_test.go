package promobserve_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackLongPolicyNameClipped: a policy named after what a client
// chose (an Overrides provider naming a policy per tenant, a tenant
// named with 64 KiB) made label values of 64 KiB, in every series of
// the policy and every scrape: a Prometheus with label_value_length_limit
// set (a usual guard) then refuses the whole scrape, every metric of the
// target lost while the tenant lives. Now a label value is at most
// promobserve.MaxLabelBytes (128) bytes: a longer name keeps its start
// and a hash of the whole, so that two long names stay apart.
func TestAttackLongPolicyNameClipped(t *testing.T) {
	t.Parallel()
	reg, obs, ms := watchedStore(t, promobserve.Options{}, 16)
	var lims []*core.Limiter
	for _, c := range []string{"a", "b"} {
		long := "tenant-" + strings.Repeat(c, 64<<10)
		lims = append(lims, decideOnce(t, core.MustPolicy(long, core.Limit{Name: strings.Repeat("é", 1000), Algorithm: core.FixedWindow{Quota: 1, Window: time.Hour}}), ms, obs))
	}
	fams, err := reg.Gather()
	require.NoError(t, err)
	policies := map[string]bool{}
	longest := 0
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				longest = max(longest, len(l.GetValue()))
				if l.GetName() == "policy" {
					policies[l.GetValue()] = true
					assert.True(t, strings.HasPrefix(l.GetValue(), "tenant-"), "the name's start is kept")
				}
			}
		}
	}
	assert.LessOrEqual(t, longest, promobserve.MaxLabelBytes)
	assert.Len(t, policies, 2, "two long names stay apart")
	assert.Len(t, lims, 2)
}

// Two policies whose labels are alike, a long name and one spelled as
// its clipped label (a tenant naming itself after another's label), are
// one series of the memory gauges: two would be a duplicate metric, and
// the registry would fail the whole scrape.
func TestLongPolicyNameAndItsLabelOneMemorySeries(t *testing.T) {
	t.Parallel()
	reg, obs, ms := watchedStore(t, promobserve.Options{}, 16)
	long := strings.Repeat("t", 1000)
	var lims []*core.Limiter
	for _, name := range []string{long, labelOf(t, long)} {
		lims = append(lims, decideOnce(t, core.MustPolicy(name, core.Limit{Algorithm: core.FixedWindow{Quota: 1, Window: time.Hour}}), ms, obs))
	}
	_, err := reg.Gather()
	require.NoError(t, err, "no duplicate metric")
	assert.Equal(t, map[string]float64{"policy=" + labelOf(t, long): 2}, values(scrape(t, reg), "floodgate_memory_keys"))
	assert.Len(t, lims, 2)
}

// labelOf returns the label value promobserve writes name as, read from a
// decision's series.
func labelOf(t *testing.T, name string) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, promobserve.Options{})
	require.NoError(t, err)
	obs.Decided(context.Background(), core.Decision{Policy: name})
	fams, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "policy" {
					return l.GetValue()
				}
			}
		}
	}
	t.Fatal("no policy label")
	return ""
}

// A decision of a long-named policy, within MaxPolicies or beyond it,
// allocates nothing and does not hash its name for the label at every
// decision: the label is computed once, when the name is admitted.
// (Computing it per decision, as the first clipping did, cost an
// allocation and a hash of the whole name for each request of such a
// policy: a flood of denials of one tenant named with 64 KiB paid that
// for every one.)
func TestLongPolicyNamesDecideWithoutAllocating(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	// (Not parallel: AllocsPerRun refuses parallel tests.)
	obs, err := promobserve.New(prometheus.NewRegistry(), promobserve.Options{MaxPolicies: 1})
	require.NoError(t, err)
	ctx := context.Background()
	in := core.Decision{Policy: strings.Repeat("a", 4096), LimitName: "hour", Store: "memory"}
	out := core.Decision{Policy: strings.Repeat("b", 4096), LimitName: "hour", Store: "memory"}
	obs.Decided(ctx, in)  // admitted
	obs.Decided(ctx, out) // beyond MaxPolicies
	assert.Zero(t, testing.AllocsPerRun(20, func() { obs.Decided(ctx, in) }), "admitted")
	assert.Zero(t, testing.AllocsPerRun(20, func() { obs.Decided(ctx, out) }), "beyond MaxPolicies")
}

// watchedStore returns a registry, an Observer of opts registered on it,
// and a memory store of maxKeys keys in one shard the Observer watches.
func watchedStore(t *testing.T, opts promobserve.Options, maxKeys int) (*prometheus.Registry, *promobserve.Observer, *core.MemoryStore) {
	t.Helper()
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, opts)
	require.NoError(t, err)
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: maxKeys, Shards: 1})
	require.NoError(t, err)
	obs.WatchMemory(ms)
	return reg, obs, ms
}

// decideOnce returns a limiter of p on ms, observed by obs, after one
// decision for the key "k".
func decideOnce(t *testing.T, p *core.Policy, ms *core.MemoryStore, obs *promobserve.Observer) *core.Limiter {
	t.Helper()
	l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(coretest.NewClock(coretest.T0)), core.WithObserver(obs))
	require.NoError(t, err)
	_, err = l.Allow(context.Background(), "k")
	require.NoError(t, err)
	return l
}
