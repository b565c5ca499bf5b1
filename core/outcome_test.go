package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viaDecisions is a store whose tables are the in-memory store's, seen
// only through store.Table: a Limiter on it assembles every Result from a
// store.Decision, as it does for any store but the in-memory one.
type viaDecisions struct{ ms *core.MemoryStore }

type opaqueTable struct{ store.Table }

func (v viaDecisions) Bind(p *core.Policy) (store.Table, error) {
	t, err := v.ms.Bind(p)
	return opaqueTable{t}, err
}

// A Result assembled from a table's decisions is exactly the Result the
// in-memory store returns, for takes and peeks. (Refunds are not compared:
// seen through store.Table, the in-memory table lacks the eviction epoch a
// refund carries, and gives nothing back.)
func TestDecisionMakesTheMemoryResult(t *testing.T) {
	t.Parallel()
	p := core.MustPolicy("two",
		core.Limit{Name: "burst", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 2}},
		core.Limit{Name: "daily", Algorithm: core.FixedWindow{Quota: 5, Window: 24 * time.Hour}})
	one := core.MustPolicy("one", core.Limit{Name: "one", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 2}})
	for _, p := range []*core.Policy{p, one} {
		clk := coretest.NewClock(t0)
		mem, err := core.NewLimiter(p, core.WithClock(clk))
		require.NoError(t, err)
		ms, err := core.NewMemoryStore(core.MemoryOptions{})
		require.NoError(t, err)
		via, err := core.NewLimiter(p, core.WithClock(clk), core.WithStore(viaDecisions{ms}))
		require.NoError(t, err)
		ctx := context.Background()
		for i := 0; i < 4; i++ {
			want, err := mem.Allow(ctx, "k")
			require.NoError(t, err)
			got, err := via.Allow(ctx, "k")
			require.NoError(t, err)
			assert.Equal(t, core.Anonymous(want), core.Anonymous(got), "take %d", i)
			want, err = mem.Peek(ctx, "k", 2)
			require.NoError(t, err)
			got, err = via.Peek(ctx, "k", 2)
			require.NoError(t, err)
			assert.Equal(t, core.Anonymous(want), core.Anonymous(got), "peek %d", i)
		}
	}
}
