package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Deployed behind a proxy (at 10.0.0.7, appending the client's address to
// X-Forwarded-For), the example counts each client apart once told the
// proxy's network: with no way to say so, every client was the proxy's
// one address, and one client's 5 login attempts in a minute refused
// every other client's login (another client: 429). A client's own
// X-Forwarded-For entry moves it to no other key.
func TestAttackBehindAProxyOneClientLocksOutNobody(t *testing.T) {
	t.Parallel()
	h, err := newRouter([]string{"10.0.0.0/8"})
	require.NoError(t, err)
	login := func(xff string) int {
		r := httptest.NewRequest(http.MethodPost, "/login", nil)
		r.RemoteAddr = "10.0.0.7:41000"
		r.Header.Set("X-Forwarded-For", xff)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for i := range 5 {
		require.Equal(t, http.StatusOK, login("198.51.100.1"), i)
	}
	assert.Equal(t, http.StatusTooManyRequests, login("203.0.113.9, 198.51.100.1"), "the attacker, whatever it writes")
	assert.Equal(t, http.StatusOK, login("198.51.100.2"), "another client")
}
