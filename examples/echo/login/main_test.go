package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func attempt(h http.Handler, remote, user, password string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	return attemptVia(h, remote, "", user, password, cookies...)
}

// attemptVia is attempt through a proxy at remote that sent xff as
// X-Forwarded-For (none when "").
func attemptVia(h http.Handler, remote, xff, user, password string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	form := url.Values{"username": {user}, "password": {password}}
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = remote
	if xff != "" {
		r.Header.Set("X-Forwarded-For", xff)
	}
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// Successes never count; of one account's failures the five free ones and
// the one beyond them, which sets a 1 s lockout, reach the password check;
// the next attempt is throttled (whatever its password, from any address,
// under any spelling of the name) until the lockout ends.
func TestOnlyFailuresCount(t *testing.T) {
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	h := newServer(testSecret, login.Options{Clock: clk})
	for range 20 {
		require.Equal(t, http.StatusOK, attempt(h, "192.0.2.1:1", "alice", "correct horse").Code)
	}
	for i := range 6 {
		require.Equal(t, http.StatusUnauthorized, attempt(h, "192.0.2.1:1", "alice", "guess").Code, "failure %d", i)
	}
	w := attempt(h, "198.51.100.7:1", "Alice", "correct horse")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Equal(t, http.StatusUnauthorized, attempt(h, "192.0.2.1:1", "bob", "guess").Code, "another account is not locked")
	clk.Advance(time.Second)
	assert.Equal(t, http.StatusOK, attempt(h, "192.0.2.1:1", "alice", "correct horse").Code)
}

// An attacker failing on alice's account from many addresses locks the
// account, but not alice on the device she logged in from: the example
// as deployed issues device cookies, as README's login snippet does. With
// the zero login.Options it issued none: 6 guesses every 5 s kept alice
// out of her account, her own device included (7 of her 12 logins over
// the minute refused, more as the lockouts doubled); none now.
func TestAttackLockoutSparesTheOwnersDevice(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	h := newServer(testSecret, login.Options{Clock: clk})
	w := attempt(h, "192.0.2.1:1", "alice", "correct horse")
	require.Equal(t, http.StatusOK, w.Code)
	var device *http.Cookie
	for _, c := range w.Result().Cookies() {
		if c.Name == login.DefaultDeviceCookie {
			device = c
		}
	}
	require.NotNil(t, device, "a successful login issues a device cookie")
	assert.True(t, device.Secure, "the cookie is sent back over TLS only")
	refused := 0
	for i := range 12 { // a minute of guessing, 5 s apart, from new addresses
		for j := range 6 {
			attempt(h, fmt.Sprintf("203.0.113.%d:1", 1+(i*6+j)%250), "alice", "guess")
		}
		clk.Advance(5 * time.Second)
		if attempt(h, "192.0.2.1:1", "alice", "correct horse", device).Code != http.StatusOK {
			refused++
		}
	}
	assert.Zero(t, refused, "alice's logins refused on her own device")
	assert.Equal(t, http.StatusTooManyRequests, attempt(h, "198.51.100.9:1", "alice", "correct horse").Code,
		"without the cookie the account stays locked")
}

// testSecret signs the tests' device cookies.
var testSecret = []byte("0123456789abcdef0123456789abcdef")
