package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailLocalResetReachesTheLocalLimiter: under FailLocal every take
// Redis admits is charged to the local limiter too (32394f4). A reset
// (the login guard's Unlock after a completed password reset, its
// ResetAccountOnSuccess) forgot the key in Redis only: an outage that
// followed within the window still denied the key everything its charges
// held, though Redis held nothing for it. Now the reset reaches the local
// limiter as well.
func TestFailLocalResetReachesTheLocalLimiter(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	px := faultproxy.Start(t, srv.Addr())
	s, _ := faultStore(t, patientClient(t, px.Addr()), redisstore.Options{Timeout: noDeadline,
		FailureMode: redisstore.FailLocal, LocalShare: 1, CallerClock: true})
	ctx := context.Background()
	require.NoError(t, s.Check(ctx))
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 3, Window: time.Hour}}),
		core.WithStore(s), core.WithClock(coretest.NewClock(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC))))
	require.NoError(t, err)
	for range 3 {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	require.NoError(t, l.Reset(ctx, "k"))
	px.Refuse(true)
	px.Drop()
	admitted := 0
	for range 5 {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		if r.Allowed {
			admitted++
		}
	}
	assert.True(t, s.Down())
	assert.Equal(t, 3, admitted, "admitted during the outage after the reset")
}
