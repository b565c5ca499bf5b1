package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A link-local peer ("[fe80::1%eth0]:1234") was refused 403: every client
// of an IPv6 LAN or a link-local mesh was locked out. It is keyed by its
// link: limited like any client, the same address on another link apart.
func TestPerIPLinkLocalPeer(t *testing.T) {
	t.Parallel()
	m, err := middleware.PerIP("1/hour")
	require.NoError(t, err)
	h := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	serve := func(remote string) int {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	assert.Equal(t, http.StatusOK, serve("[fe80::1%eth0]:1234"))
	assert.Equal(t, http.StatusTooManyRequests, serve("[fe80::2%eth0]:1234"), "one link, one /64")
	assert.Equal(t, http.StatusOK, serve("[fe80::1%eth1]:1234"), "another link")
}
