package login_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/require"
)

// TestAttackZeroDeviceSecretRefused: a device secret of 32 zero bytes (a
// buffer whose crypto/rand.Read was forgotten) was accepted, and anyone
// who knows the library signs device cookies with it: an attacker's own
// guard with the same secret issues a cookie for "alice" at each login of
// the attacker's, each cookie a fresh device budget counted on neither
// alice's account nor the attacker's network. 10 forged cookies brought
// 50 guesses of alice's password to the check against 5 free failures.
// New refuses such a secret.
func TestAttackZeroDeviceSecretRefused(t *testing.T) {
	t.Parallel()
	zero := make([]byte, login.MinDeviceSecret)
	opts := login.Options{Devices: &login.DeviceOptions{Secret: zero}, Clock: coretest.NewClock(t0)}
	victim, err := login.New(opts)
	if err == nil {
		forger, err2 := login.New(opts)
		require.NoError(t, err2)
		// The attacker's guard, run locally: every login of alice succeeds.
		mint := forger.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
		app := &app{}
		h := victim.Handler(app)
		const addr = "198.51.100.9:1"
		for range 10 {
			cookies := serve(mint, formRequest("alice", "any", "203.0.113.1:1")).Result().Cookies()
			for range 5 {
				r := formRequest("alice", "guess", addr)
				for _, c := range cookies {
					r.AddCookie(c)
				}
				serve(h, r)
			}
		}
		t.Logf("guesses of alice's password that reached the check with forged cookies: %d", app.checks.Load())
	}
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	require.ErrorContains(t, err, "rand.Read")
}
