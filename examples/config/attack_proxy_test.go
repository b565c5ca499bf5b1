package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackOnlyTheNamedProxyChoosesKeys: the example trusted all of
// 10.0.0.0/8 as proxies, so that any host inside it (another service, a
// compromised pod, a VPN user) chose its own key in X-Forwarded-For: 61
// requests from 10.1.2.3, each claiming another client, were all served
// past the anonymous 60/min. It now names the load balancer's address:
// the host is counted as itself (60 served, then 429), and the load
// balancer's X-Forwarded-For is still believed.
func TestAttackOnlyTheNamedProxyChoosesKeys(t *testing.T) {
	t.Parallel()
	lim, err := load("", coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = lim.Close() })
	h := lim.Handler(api())
	get := func(peer, xff string) int {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", xff)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	served := 0
	for i := range 61 {
		if get("10.1.2.3:4000", fmt.Sprintf("198.51.100.%d", i)) == http.StatusOK {
			served++
		}
	}
	assert.Equal(t, 60, served, "a host inside 10/8 that is no proxy is one client")
	assert.Equal(t, http.StatusOK, get("10.0.0.5:4000", "198.51.100.200"), "the proxy's client, counted apart")
}
