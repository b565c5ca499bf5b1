package login_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/require"
)

// changingApp has one account, alice, whose password changes: the
// attacker knew the first one, alice has since changed it.
type changingApp struct {
	changed atomic.Bool
	checks  atomic.Int64 // checks made after the change
}

func (a *changingApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	pass := "old"
	if a.changed.Load() {
		a.checks.Add(1)
		pass = "new"
	}
	// The application matches usernames as the guard normalizes them.
	if login.NormalizeUsername(r.PostForm.Get("username")) == "alice" && r.PostForm.Get("password") == pass {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackFarmedDeviceCookies: every success earns a new device cookie,
// each judged on a counter of its own, and successes cost nothing; an
// attacker who once knew alice's password farms cookies by logging in again
// and again, and after alice changes it each cookie is a fresh budget of
// guesses that never touches her account's counter. Before the fix, 50
// farmed cookies let 300 guesses of the new password reach the check (6 per
// cookie) against 6 without cookies, and so did cookies farmed under 50
// spellings of her name; the devices of one account now share a budget (DefaultDevices: 20 free failures an hour, and the one that
// locks), past which an attempt is judged as one without a cookie.
func TestAttackFarmedDeviceCookies(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := deviceGuard(t, clk, login.DeviceOptions{})
	app := &changingApp{}
	h := g.Handler(app)
	// Cookies are bound to a username as submitted: they are farmed
	// under 50 spellings of alice's, each guessing as its own.
	spellings := variants()[:50]
	var farmed []*http.Cookie
	for i, s := range spellings {
		farmed = append(farmed, loginCookie(t, h, s, "old", addr(i)))
	}
	app.changed.Store(true)
	codes := map[int]int{}
	for i, c := range farmed {
		for range 6 {
			codes[serve(h, withCookie(formRequest(spellings[i], "guess", addr(1000+i)), c)).Code]++
		}
	}
	require.Equal(t, int64(21+6), app.checks.Load(), "guesses that reached the check: %v", codes)
}
