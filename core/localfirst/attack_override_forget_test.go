package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideForgetsKeysetInUse: core.Overrides forgets an unused
// override name for a new one (MaxPolicies reached) only when its keys
// have all recovered, so that no tenant starts afresh; it asked that of
// the in-memory store's tables only, and took any other store's keys as
// kept under the policy's name. A local-first table keeps on the node
// what a new one does not find: a key's count of its window until a
// round reads it back, what is not yet pushed, and the notes of keys it
// forgot. A tenant that had spent its hour's 10, its name forgotten and
// its limiter retired past return, came back on a new keyset, a key new
// to the node: 10 more within the hour. The table now says whether its
// keys have recovered, and the name holds its place until they have
// (the hour over, it gives way).
func TestAttackOverrideForgetsKeysetInUse(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	s, err := localfirst.New(client, localfirst.Options{Nodes: 1, Clock: clk, Timeout: localfirst.MaxTimeout, Prefix: "ovforget:"})
	require.NoError(t, err)
	pol := func(name string) *core.Policy {
		return core.MustPolicy(name, core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour}})
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
	require.Equal(t, 10, spend())
	require.NoError(t, s.Sync(ctx))
	for _, other := range []string{"a", "b"} { // forgotten, then retired past return
		clk.Advance(2 * time.Minute)
		_, _ = o.Allow(ctx, other)
		require.NoError(t, s.Sync(ctx))
	}
	clk.Advance(2 * time.Minute)
	require.Zero(t, spend(), "within the hour the tenant spent")

	// Its window over and pushed, the name gives its place to a new one.
	require.NoError(t, s.Sync(ctx))
	clk.Advance(2 * time.Hour)
	_, err = o.Allow(ctx, "c")
	require.NoError(t, err, "a name whose keys recovered is forgotten")
}
