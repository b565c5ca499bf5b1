package ginlimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gin's ClientIP answers "" for a link-local peer ("[fe80::1%eth0]:1"),
// whose zone net.ParseIP refuses, having read no header: it was keyed as
// no key (refused 403, every link-local client locked out). It is keyed
// by RemoteAddr, as in PerIP: by its link.
func TestClientIPLinkLocalPeer(t *testing.T) {
	t.Parallel()
	e := gin.New()
	require.NoError(t, e.SetTrustedProxies([]string{"10.0.0.0/8"}))
	for _, key := range []func(*http.Request) (string, error){ginlimit.ClientIP(e), ginlimit.ClientIP(gin.New())} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "[fe80::1%eth0]:1234"
		r.Header.Set("X-Forwarded-For", "198.51.100.7")
		k, err := key(r)
		require.NoError(t, err)
		assert.Equal(t, "fe80::%eth0/64", k)
	}
}
