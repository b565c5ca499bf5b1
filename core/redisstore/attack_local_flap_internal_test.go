package redisstore

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackFailLocalFlapping: a Redis that answers late (a stall, a
// jittery link around Timeout) makes the breaker flap: each late reply
// closes it (any answered round trip does), the next decisions fault and
// open it again. FailLocal must still grant this process at most its
// LocalShare of the limit over the window, however many times the breaker
// flaps: a local limiter started empty at every outage granted a fresh
// share at every flap (10 flaps, 10 shares).
func TestAttackFailLocalFlapping(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// One dial per round trip (go-redis redials a refused connection 5
	// times, 100 ms apart, by default: 4 s of this test's time).
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	t.Cleanup(func() { _ = client.Close() })
	s, err := New(client, Options{
		FailureMode: FailLocal, LocalShare: 0.5,
		ProbeInterval: time.Hour, // no trial of its own: the flaps are the late replies
		// Each decision waits for its own refused round trip: none is
		// left to fail late, after the flap this test makes, whatever the
		// machine's load.
		Timeout: 30 * time.Second,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	p, err := core.Single("p", core.FixedWindow{Quota: 10, Window: time.Hour, Anchored: true})
	require.NoError(t, err)
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)

	admitted := 0
	for range 10 {
		for range 20 {
			r, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			if r.Allowed {
				admitted++
			}
		}
		require.True(t, s.Down())
		s.br.Answered(s.br.Epoch()) // a late reply of a stalled round trip: Redis answered
		require.False(t, s.Down())
	}
	assert.LessOrEqual(t, admitted, 5, "FailLocal granted more than its share of 10 in the window")
}
