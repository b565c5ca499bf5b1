package login_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/require"
)

// TestAttackBeginNilRequest: Begin, the manual form, given no request
// returns an error instead of panicking (it panicked in the client-IP key
// function).
func TestAttackBeginNilRequest(t *testing.T) {
	for _, dev := range []bool{false, true} {
		opts := login.Options{}
		if dev {
			opts.Devices = &login.DeviceOptions{Secret: bytes.Repeat([]byte{7}, 32)}
		}
		g := newGuard(t, coretest.NewClock(t0), opts)
		require.NotPanics(t, func() {
			a, err := g.Begin(context.Background(), "alice", nil)
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			require.Nil(t, a)
		})
	}
}
