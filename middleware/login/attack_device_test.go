package login_test

import (
	"bytes"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/require"
)

// twinApp has two accounts that its own lookup keeps apart but that
// NormalizeUsername merges: "alice" (the victim) and fullwidth "ａｌｉｃｅ"
// (the attacker's, registered by an application that does not normalise
// usernames the guard's way).
type twinApp struct{ aliceChecks atomic.Int64 }

func (a *twinApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	user, pass := r.PostForm.Get("username"), r.PostForm.Get("password")
	switch {
	case user == "alice":
		a.aliceChecks.Add(1)
		if pass == "secret" {
			w.WriteHeader(http.StatusOK)
			return
		}
	case user == "ａｌｉｃｅ" && pass == "mine":
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// TestAttackDeviceCookieOfTwinAccount: a device cookie earned by logging in
// to one's own account must not open another account's device path. The
// cookie was bound to the normalised name, so the attacker's own successful
// logins as "ａｌｉｃｅ" each gave a cookie valid for "alice", judged on a
// fresh device counter and never on alice's account or the attacker's
// network: 60 guesses of alice's password reached the check against 5 free
// failures.
func TestAttackDeviceCookieOfTwinAccount(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{Devices: &login.DeviceOptions{Secret: bytes.Repeat([]byte{9}, 32)}})
	app := &twinApp{}
	h := g.Handler(app)
	const addr = "198.51.100.9:1"
	for range 12 {
		// The attacker's own login (throttled too, once the name both
		// accounts normalize to is locked: it shares their counter).
		w := serve(h, formRequest("ａｌｉｃｅ", "mine", addr))
		for range 5 {
			r := formRequest("alice", "guess", addr)
			for _, c := range w.Result().Cookies() {
				r.AddCookie(c)
			}
			serve(h, r)
		}
	}
	require.LessOrEqual(t, app.aliceChecks.Load(), int64(6), "guesses at alice's password that reached the check")
}

// TestAttackDeviceCookieSameSpelling: the cookie still serves its owner,
// who logs in with the username spelled as when it was issued.
func TestAttackDeviceCookieSameSpelling(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{Devices: &login.DeviceOptions{Secret: bytes.Repeat([]byte{9}, 32)}})
	app := &twinApp{}
	h := g.Handler(app)
	w := serve(h, formRequest("alice", "secret", "198.51.100.9:1"))
	require.Equal(t, http.StatusOK, w.Code)
	cookie := w.Result().Cookies()[0]
	// An attacker locks alice's account from elsewhere.
	for range 40 {
		serve(h, formRequest("alice", "guess", "203.0.113.5:1"))
	}
	r := formRequest("alice", "secret", "198.51.100.9:1")
	r.AddCookie(cookie)
	require.Equal(t, http.StatusOK, serve(h, r).Code)
}

// TestAttackResetByTwinAccount: with ResetAccountOnSuccess, logging in to
// one's own account "ａｌｉｃｅ" cleared the counter it shares with "alice":
// five guesses per own login, from rotating IPv6 networks, let 200 of 200
// guesses at alice's password reach the check.
func TestAttackResetByTwinAccount(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{ResetAccountOnSuccess: true})
	app := &twinApp{}
	h := g.Handler(app)
	for i := range 40 {
		addr := "[2001:db8:0:" + strconv.Itoa(i) + "::1]:1"
		serve(h, formRequest("ａｌｉｃｅ", "mine", addr))
		for range 5 {
			serve(h, formRequest("alice", "guess", addr))
		}
	}
	require.LessOrEqual(t, app.aliceChecks.Load(), int64(6), "guesses at alice's password that reached the check")
	// alice's own success still resets: her typos are forgotten.
	g = newGuard(t, coretest.NewClock(t0), login.Options{ResetAccountOnSuccess: true})
	h = g.Handler(app)
	for range 4 {
		serve(h, formRequest("alice", "typo", "198.51.100.1:1"))
	}
	require.Equal(t, http.StatusOK, serve(h, formRequest("alice", "secret", "198.51.100.1:1")).Code)
	for range 5 {
		require.Equal(t, http.StatusUnauthorized, serve(h, formRequest("alice", "typo", "198.51.100.1:1")).Code)
	}
}
