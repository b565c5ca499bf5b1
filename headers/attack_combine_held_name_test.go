package headers_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/sftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A draft 11 Writer lists the binding limit a draft 6 Writer left in the
// response as an item of its own; it was named "held", a name a limit may
// have: behind a global limit, spent, a route's limit named "held" merged
// with it by name, and the lists kept one of the two (the global's, the
// stricter: the route's limit went unlisted). The item is now named
// "%held", which no limit's name is written as (a '%' is written %25).
func TestAttackCombineHeldItemNamesNoLimit(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	g, r := thirdTake(t, clk, "global", 3), thirdTake(t, clk, "held", 100)
	h := http.Header{}
	newWriter(t, headers.Options{Draft: headers.DraftIETF6, Omit: headers.XRateLimit}).Write(h, &g)
	newWriter(t, headers.Options{}).Combine(h, &r)
	rl, err := sftest.CheckRateLimit11(h.Get("RateLimit"))
	require.NoError(t, err, h.Get("RateLimit"))
	assert.Len(t, rl, 2, h.Get("RateLimit"))
	assert.Equal(t, []string{`"%held";r=0;t=55, "held";r=97;t=55`}, h.Values("RateLimit"))
	assert.Equal(t, []string{`"%held";q=3;w=60, "held";q=100;w=60`}, h.Values("RateLimit-Policy"))
	r2 := thirdTake(t, clk, "%held", 100)
	newWriter(t, headers.Options{}).Combine(h, &r2)
	assert.Equal(t, []string{`"%held";r=0;t=55, "held";r=97;t=55, "%25held";r=97;t=55`}, h.Values("RateLimit"),
		"a limit named %held is written apart")
}
