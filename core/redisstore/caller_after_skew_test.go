package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallerWriteAfterSkewedServerAdmitsTheBurst checks a suspected
// bypass that is not one. A server whose clock ran an hour ahead decided a
// key on TIME (seen an hour ahead); after a failover to a server on time, a
// process on its own clock (CallerClock) took what it could, and its write
// kept the key's seen. The next decision on TIME moves the state back by
// seen - now. That returns exactly the debt the ahead clock wrote and no
// more: the first server's take left its state an hour further ahead than
// a server on time would have (9 admitted before the move, the burst of 10
// after it, never 11). (LoadMixedTime: instants of odd µs are decided as on
// TIME, even ones on the caller's clock.)
func TestCallerWriteAfterSkewedServerAdmitsTheBurst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := startRedis(t).Client(t)
	require.NoError(t, redisstore.LoadMixedTime(ctx, c))
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: 24 * time.Hour, DenyCacheSize: -1})
	p := core.MustPolicy("skew", core.Limit{Name: "x", Algorithm: core.GCRA{Rate: core.Per(1, time.Hour), Burst: 10}})
	t0 := coretest.T0.UnixMicro()/2*2 + 1 // odd: on TIME
	clk := coretest.NewClock(time.UnixMicro(t0 + time.Hour.Microseconds()))
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)
	admitted := 0
	take := func() bool {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		if r.Allowed {
			admitted++
		}
		return r.Allowed
	}
	require.True(t, take(), "the server an hour ahead, on TIME")
	clk.Set(time.UnixMicro(t0 + 9_999_999)) // even: the caller's clock, 10 s in
	for range 20 {
		if !take() {
			break
		}
	}
	require.Equal(t, 9, admitted, "the first server's take cost two units on time")
	clk.Set(time.UnixMicro(t0 + 20_000_000)) // odd: TIME on the new server, 20 s in
	for range 20 {
		if !take() {
			break
		}
	}
	assert.Equal(t, 10, admitted, "the burst, never more")
}
