package redisinflight_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestCloseStopsRenewals: a slot still held when its limiter is closed (a
// hijacked connection, which http.Server.Shutdown does not wait for) was
// renewed on after Close: through the client Close had just closed (a
// Ring's or a ClusterClient's, the limiter's own), or the application's
// closed next (examples/inflight's order), every renewal failed, was
// tried again and told to OnError, 8 reports per held slot at every
// shutdown (7 "client is closed", then ErrLeaseLost) for slots nobody
// lost; through a client still open, the closed limiter went on sending
// a script per held slot per Lease/3. Close now ends the renewals: a due
// renewal sends nothing, reports nothing and schedules no other, and the
// lease ends by itself within Lease, as a stopped process's.
func TestCloseStopsRenewals(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	for name, tc := range map[string]struct {
		client      func(t *testing.T) redis.UniversalClient
		closeClient bool // the application closes its client after Close
	}{
		"its own client (a Ring's)": {client: func(t *testing.T) redis.UniversalClient {
			r := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": srv.Addr()}, MaxRetries: -1,
				ReadTimeout: time.Hour}) // (beyond the limiter's bound: it makes a client of its own)
			t.Cleanup(func() { _ = r.Close() })
			return r
		}},
		"the application's, closed after": {client: func(t *testing.T) redis.UniversalClient { return srv.Client(t) }, closeClient: true},
		"the application's, still open":   {client: func(t *testing.T) redis.UniversalClient { return srv.Client(t) }},
	} {
		t.Run(name, func(t *testing.T) {
			c := tc.client(t)
			clk := coretest.NewClock(t0)
			var reports atomic.Int64
			l := newLimiter(t, c, 1, redisinflight.Options{Clock: clk, Prefix: "close-" + name + ":",
				OnError: func(error) { reports.Add(1) }})
			timers := redisinflight.FakeRenewals(l)
			ctx := context.Background()
			_, err := l.Acquire(ctx, "k") // held as the limiter closes
			require.NoError(t, err)
			timer := within.Recv(t, timers, "the slot's renewal timer")
			require.NoError(t, l.Close())
			if tc.closeClient {
				require.NoError(t, c.Close())
			}
			sent := scriptsRun(t, srv)
			at, tries := t0, 0
			for scheduled := timer.Scheduled; tries < 64; {
				at = at.Add(timer.Period)
				clk.Set(at)
				timer.Renew()
				tries++
				if timer.Scheduled == scheduled {
					break // not tried again
				}
				scheduled = timer.Scheduled
			}
			require.Zero(t, reports.Load(), "nothing told to OnError after Close (%d renewals run)", tries)
			require.Equal(t, 1, timer.Scheduled, "no renewal scheduled after Close")
			require.Equal(t, sent, scriptsRun(t, srv), "no script sent after Close")
		})
	}
}
