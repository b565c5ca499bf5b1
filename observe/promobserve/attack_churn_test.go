package promobserve_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/observetest"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// policyLabels returns the distinct policy and limit label values of
// floodgate_decisions_total, and its series.
func policyLabels(t *testing.T, reg *prometheus.Registry) (policies, limits map[string]bool, n int) {
	t.Helper()
	fams, err := reg.Gather()
	require.NoError(t, err)
	policies, limits = map[string]bool{}, map[string]bool{}
	for _, f := range fams {
		if f.GetName() != "floodgate_decisions_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			n++
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "policy":
					policies[l.GetValue()] = true
				case "limit":
					limits[l.GetValue()] = true
				}
			}
		}
	}
	return policies, limits, n
}

// TestAttackTenantChurnBoundsPolicySeries: an Overrides provider naming a
// policy per tenant, tenants coming and going (Overrides forgets a name
// unused for a new one, so that its MaxPolicies of 4 never fills for
// good), made series of every name ever decided, never dropped: 40
// tenants left 40 policy label values and 80 series, growing with every
// sign-up for the life of the process (the Observer's map of counters
// and the registry's children with them, and the Prometheus server's
// cardinality). Now the first MaxPolicies names keep labels of their
// own and every later one is counted as policy and limit "(other)": 8
// names and the overflow, 18 series, however many tenants come.
func TestAttackTenantChurnBoundsPolicySeries(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, promobserve.Options{MaxPolicies: 8})
	require.NoError(t, err)
	observetest.ChurnTenants(t, obs, 40)
	policies, limits, n := policyLabels(t, reg)
	assert.Len(t, policies, 9, "8 names and the overflow")
	assert.True(t, policies[promobserve.Other], "the later names are counted as %q", promobserve.Other)
	assert.Equal(t, map[string]bool{"hour": true, promobserve.Other: true}, limits)
	assert.Equal(t, 18, n, "allowed and denied of each label pair")
	// The overflow counts every decision of the later tenants.
	fams := scrape(t, reg)
	vals := values(fams, "floodgate_decisions_total")
	assert.Equal(t, 32.0, vals["limit="+promobserve.Other+",policy="+promobserve.Other+",result=allowed,source=store,store=memory"])
	assert.Equal(t, 32.0, vals["limit="+promobserve.Other+",policy="+promobserve.Other+",result=denied,source=store,store=memory"])

	_, err = promobserve.New(prometheus.NewRegistry(), promobserve.Options{MaxPolicies: -1})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}

// TestAttackTenantFloodCannotHideOwnPolicies: tenants signed up in a
// burst (after a restart, say) filled MaxPolicies with their names, and
// every policy of the service's own decided after them (a login limit
// decided at the first login) was counted as "(other)": an alert on
// policy="login" silenced by sign-ups. The names of an Overrides
// provider (core.Decision.Override) are bounded apart from the others:
// "login" keeps its label after 40 tenants with MaxPolicies 8.
func TestAttackTenantFloodCannotHideOwnPolicies(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, promobserve.Options{MaxPolicies: 8})
	require.NoError(t, err)
	observetest.ChurnTenants(t, obs, 40)
	login, err := core.NewLimiter(core.MustPolicy("login", core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 5, Window: time.Hour}}),
		core.WithObserver(obs))
	require.NoError(t, err)
	_, err = login.Allow(context.Background(), "k")
	require.NoError(t, err)
	policies, _, _ := policyLabels(t, reg)
	assert.True(t, policies["login"], "the service's own policy keeps its label: %v", policies)
	assert.Len(t, policies, 10, "8 tenants, the overflow, login")
}

// TestAttackTenantChurnBoundsMemorySeries: the memory gauges
// (floodgate_memory_keys, floodgate_memory_max_keys) labelled each table
// by its policy name, unbounded: tenants churning through an Overrides on
// a watched MemoryStore each made a series of their own at the scrapes
// of their lifetime, 40 tenants 40 policy values, growing with every
// sign-up in the backend. Now a table's policy keeps its label when the
// decisions gave it one, else while a bound of its own (MaxPolicies) admits
// it; later tables are summed as "(other)".
func TestAttackTenantChurnBoundsMemorySeries(t *testing.T) {
	t.Parallel()
	reg, obs, ms := watchedStore(t, promobserve.Options{MaxPolicies: 8}, 64)
	seen := map[string]bool{}
	observetest.ChurnTenantsEach(t, obs, 40, func() {
		fams, err := reg.Gather()
		require.NoError(t, err)
		for _, f := range fams {
			if f.GetName() != "floodgate_memory_keys" {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					seen[l.GetValue()] = true
				}
			}
		}
	}, core.WithStore(ms))
	assert.LessOrEqual(t, len(seen), 2*8+1, "the tenants decided, 8 tables more, the overflow: %v", seen)
	assert.True(t, seen[promobserve.Other])
	assert.False(t, seen["tenant-39"], "a late tenant is summed as the overflow")
}
