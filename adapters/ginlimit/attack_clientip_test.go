package ginlimit_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackClientIPTrustingEveryPeer: ClientIP on an engine that trusts
// every peer (gin's default until SetTrustedProxies) took gin's answer,
// the left-most X-Forwarded-For entry or X-Real-IP any client writes: one
// client writing a new address each time had a fresh budget per request
// (10 requests, 10 keys), and one writing a victim's address spent the
// victim's. An engine that trusts a peer no proxy is is not believed: the
// client is RemoteAddr (10 requests, 1 key), as in PerIP. A platform's
// header (TrustedPlatform), which gin takes from every peer by design, and
// the proxies of a restricted engine are still believed.
func TestAttackClientIPTrustingEveryPeer(t *testing.T) {
	t.Parallel()
	for _, peer := range []string{"203.0.113.9:4000", "[2001:db8:5::9]:4000"} {
		key := ginlimit.ClientIP(gin.New())
		keys := map[string]bool{}
		for i := range 10 {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = peer
			client := "198.51.100." + strconv.Itoa(i)
			if i%2 == 0 {
				r.Header.Set("X-Forwarded-For", client)
			} else {
				r.Header.Set("X-Real-IP", client)
			}
			k, err := key(r)
			require.NoError(t, err)
			keys[k] = true
		}
		assert.Len(t, keys, 1, peer)
		assert.NotContains(t, keys, "198.51.100.0/32", peer)
	}

	e := gin.New()
	e.TrustedPlatform = gin.PlatformCloudflare
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "203.0.113.9:4000"
	r.Header.Set("CF-Connecting-IP", "198.51.100.7")
	k, err := ginlimit.ClientIP(e)(r)
	require.NoError(t, err)
	assert.Equal(t, "198.51.100.7/32", k, "the platform's header")
}
