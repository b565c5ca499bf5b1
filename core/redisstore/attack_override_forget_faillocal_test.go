package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideForgetsFailLocalShare: core.Overrides forgets an
// unused override name for a new one (MaxPolicies reached) only when its
// keys have all recovered, and took a Redis table's as kept in Redis,
// under the name. Under FailLocal a table also keeps, in the process, what
// it granted of its LocalShare (and what Redis admitted, charged there),
// so that an outage grants the process its share once: a tenant that had
// spent its share of 10 an hour during an outage, its name forgotten and
// its limiter retired past return, came back to a fresh local limiter and
// its share again, 5 more within the hour. The table now says whether its
// local limiter's keys have recovered (store.Idler).
func TestAttackOverrideForgetsFailLocalShare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t)
	px := faultproxy.Start(t, srv.Addr())
	s, _ := faultStore(t, patientClient(t, px.Addr()), redisstore.Options{Timeout: noDeadline,
		FailureMode: redisstore.FailLocal, LocalShare: 0.5})
	require.NoError(t, s.Check(ctx))
	px.Refuse(true)
	px.Drop()

	clk := newClock()
	pol := func(name string) *core.Policy {
		return core.MustPolicy(name, core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour}})
	}
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) { return pol(key), true, nil }
	o, err := core.NewOverrides(pol("default"), provider,
		core.OverrideOptions{MaxPolicies: 1, TTL: time.Minute}, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)
	spend := func() (admitted int) {
		for range 12 {
			r, err := o.Allow(ctx, "tenant")
			if err == nil && r.Allowed {
				admitted++
			}
		}
		return admitted
	}
	require.Equal(t, 5, spend(), "its share of 10")
	for _, other := range []string{"a", "b"} { // forgotten, then retired past return
		clk.Advance(2 * time.Minute)
		_, _ = o.Allow(ctx, other)
	}
	clk.Advance(2 * time.Minute)
	require.True(t, s.Down())
	require.Zero(t, spend(), "its share of the hour, spent")
}
