package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackSetPolicyDuringOutage: the Redis store's FailLocal made a
// fresh local limiter at every policy change, a fresh share of every
// limit during an outage (TestAttackFailLocalAcrossSetPolicy in
// core/redisstore). The local-first store keeps its keys' state across
// changes: with Redis gone, limits raised and lowered again and again
// grant a node no more than its share of the largest limit, and a window
// limit and a bucket alike.
func TestAttackSetPolicyDuringOutage(t *testing.T) {
	for _, tc := range []struct {
		name string
		lim  func(q int64) core.Limit
	}{
		{"window", func(q int64) core.Limit {
			return core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: q, Window: time.Hour}}
		}},
		{"bucket", func(q int64) core.Limit {
			return core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerHour(q)}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := startRedis(t)
			proxy := faultproxy.Start(t, srv.Addr())
			client := newClient(t, proxy.Addr())
			clk := coretest.NewClock(t0)
			pol := func(q int64) *core.Policy { return core.MustPolicy("o", tc.lim(q)) }
			ns := newNodes(t, client, clk, pol(100), 2, localfirst.Options{Prefix: "lf2:" + tc.name + ":"})
			a := ns[0]
			assert.Equal(t, 10, takeAll(t, a, "k", 10))
			syncAll(t, ns)
			syncAll(t, ns)

			proxy.Refuse(true)
			proxy.Drop()
			total := takeAll(t, a, "k", 1000)
			require.Error(t, a.s.Sync(context.Background()))
			first := total
			for i := range 6 {
				require.NoError(t, a.l.SetPolicy(pol([]int64{120, 100}[i%2])))
				total += takeAll(t, a, "k", 1000)
				require.Error(t, a.s.Sync(context.Background()))
			}
			t.Logf("admitted during the outage: %d at first, %d in all after 6 changes", first, total)
			// Its share of what remained (half, two nodes) under the
			// largest limit, 120: (120 − 10) / 2.
			assert.LessOrEqual(t, total, 55, "a share of the largest limit, once")
		})
	}
}
