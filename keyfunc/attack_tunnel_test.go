package keyfunc_test

import (
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackTunnelClients: IPv4 hosts reaching an IPv6 service through the
// tunnels whose addresses embed them were keyed by the IPv6 /64. A 6to4
// host (2002:a.b.c.d::/48, RFC 3056) holds 65,536 /64s, a fresh budget in
// each, for one IPv4 address; every Teredo client (2001:0::/32, RFC 4380)
// of one Teredo server shared the server's /64, one abuser throttling them
// all. Each is keyed as the IPv4 address it embeds, as it is when it comes
// by IPv4.
func TestAttackTunnelClients(t *testing.T) {
	t.Parallel()
	k, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	require.NoError(t, err)
	key := func(remote string) string {
		t.Helper()
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		s, err := k(r)
		require.NoError(t, err)
		return s
	}
	// 6to4: the host 192.0.2.45 is 2002:c000:22d::/48.
	assert.Equal(t, "192.0.2.45/32", key("[2002:c000:22d:1::1]:443"))
	assert.Equal(t, key("[2002:c000:22d:1::1]:443"), key("[2002:c000:22d:ffff::1]:443"), "two subnets of one 6to4 host")
	assert.NotEqual(t, key("[2002:c000:22d::1]:443"), key("[2002:c000:22e::1]:443"), "two 6to4 hosts")
	// Teredo: RFC 4380's layout, server 65.54.227.120 (4136:e378), client
	// 192.0.2.45 behind its NAT, the address and port stored inverted.
	assert.Equal(t, "192.0.2.45/32", key("[2001:0:4136:e378:8000:63bf:3fff:fdd2]:443"))
	assert.Equal(t, key("192.0.2.45:1"), key("[2001:0:4136:e378:8000:63bf:3fff:fdd2]:443"))
	assert.NotEqual(t, key("[2001:0:4136:e378:8000:63bf:3fff:fdd2]:443"),
		key("[2001:0:4136:e378:8000:63bf:3fff:fdd1]:443"), "two clients of one Teredo server")
	assert.Equal(t, "2001:db8::/64", key("[2001:db8::1]:443"), "other addresses: the /64 as before")

	a, err := keyfunc.AddrKey("2002:c000:22d:7::1")
	require.NoError(t, err)
	assert.Equal(t, "192.0.2.45/32", a, "AddrKey, the adapters' opt-in, keys them alike")

	v4, err := keyfunc.ClientIP(keyfunc.IPOptions{IPv4Prefix: 24, TrustedHops: 1})
	require.NoError(t, err)
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.1:1"
	r.Header.Set("X-Forwarded-For", "2002:c000:22d:9::1")
	got, err := v4(r)
	require.NoError(t, err)
	assert.Equal(t, "192.0.2.0/24", got, "a forwarded address, by the IPv4 prefix")
}
