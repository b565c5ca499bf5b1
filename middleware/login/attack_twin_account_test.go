package login_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/require"
)

// twins is an application matching usernames exactly: "alice" and
// "ALICÉ", one spelling to the guard, are two accounts, the second the
// attacker's own.
type twins struct{}

func (twins) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	user, pass := r.PostFormValue("username"), r.PostFormValue("password")
	if user == "alice" && pass == "secret" || user == "ALICÉ" && pass == "mine" {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackTwinAccountCannotLockOutDevices: an attacker owning an account
// whose name normalises as the victim's (another case, an accent, in an
// application matching names exactly) spends what its own device cookies
// allow, then floods the victim's account from 1,000 addresses: the
// victim, with the cookie of her earlier login, still gets in. A budget
// shared by every device of a normalised name (tried at this stop against
// farmed cookies, then reverted) let the attacker spend it with its own
// cookies, and the victim got 429.
func TestAttackTwinAccountCannotLockOutDevices(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := deviceGuard(t, clk, login.DeviceOptions{})
	h := g.Handler(twins{})
	victim := loginCookie(t, h, "alice", "secret", "192.0.2.1:1")
	for i := range 30 {
		own := loginCookie(t, h, "ALICÉ", "mine", addr(2000+i))
		for range 3 {
			serve(h, withCookie(formRequest("ALICÉ", "wrong", addr(2000+i)), own))
		}
	}
	for i := range 1000 {
		serve(h, formRequest("alice", "guess", addr(i)))
	}
	require.Equal(t, http.StatusTooManyRequests, serve(h, formRequest("alice", "secret", "192.0.2.1:1")).Code,
		"the anonymous stream is locked")
	require.Equal(t, http.StatusOK, serve(h, withCookie(formRequest("alice", "secret", "192.0.2.1:1"), victim)).Code,
		"the victim's device is judged apart")
}
