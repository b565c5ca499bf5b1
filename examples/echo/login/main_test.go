package main

import (
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

func attempt(h http.Handler, remote, user, password string) *httptest.ResponseRecorder {
	form := url.Values{"username": {user}, "password": {password}}
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = remote
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
	h := newServer(login.Options{Clock: clk})
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
