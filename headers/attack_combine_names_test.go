package headers_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/sftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two limits of one name (middleware.PerIP mounted globally, 3 a
// minute, and on a route, 100 a minute: both "per-ip") were listed
// twice: RateLimit: "per-ip";r=0;t=60, "per-ip";r=97;t=2. A client
// reading the items by name, as a name is there to be read, kept r=97 and
// was refused. Combine now writes one item per name, the stricter
// decision's (less remaining, or as little and a later reset), with its
// own policy item, as a single Writer never writes a name twice.
func TestAttackCombineOneItemPerName(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	mk := func(quota int64) *core.Limiter {
		return newLimiter(t, clk, core.Limit{Name: "per-ip", Algorithm: core.FixedWindow{Quota: quota, Window: 60e9}})
	}
	global, route := mk(3), mk(100)
	for _, outerFirst := range []bool{true, false} {
		w := newWriter(t, headers.Options{})
		g, r := takeN(t, global, 3), takeN(t, route, 3)
		require.NoError(t, global.Reset(t.Context(), "user"))
		require.NoError(t, route.Reset(t.Context(), "user"))
		h := http.Header{}
		if outerFirst {
			w.Combine(h, &g)
			w.Combine(h, &r)
		} else {
			w.Combine(h, &r)
			w.Combine(h, &g)
		}
		checkValid(t, h, headers.DraftIETF11)
		rl, err := sftest.CheckRateLimit11(h.Get("RateLimit"))
		require.NoError(t, err)
		pol, err := sftest.CheckPolicy11(h.Get("RateLimit-Policy"))
		require.NoError(t, err)
		require.Len(t, rl, 1, h.Get("RateLimit"))
		require.Len(t, pol, 1, h.Get("RateLimit-Policy"))
		rem, _ := rl[0].Param("r")
		q, _ := pol[0].Param("q")
		assert.Equal(t, int64(0), rem, "the global limit's: none left")
		assert.Equal(t, int64(3), q, "its policy")
	}
}
