package keyfunc_test

import (
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/stretchr/testify/require"
)

// TestAttackNAT64Clients: IPv4 clients seen through a NAT64 translator
// (64:ff9b::a.b.c.d) were all keyed "64:ff9b::/64": one abuser throttled
// every IPv4 client of an IPv6-only service. They are keyed as the IPv4
// addresses they embed.
func TestAttackNAT64Clients(t *testing.T) {
	k, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	require.NoError(t, err)
	key := func(remote string) string {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		s, err := k(r)
		require.NoError(t, err)
		return s
	}
	require.NotEqual(t, key("[64:ff9b::1.2.3.4]:1"), key("[64:ff9b::5.6.7.8]:1"))
	require.Equal(t, key("1.2.3.4:1"), key("[64:ff9b::1.2.3.4]:1"))
	require.Equal(t, key("[64:ff9b::1:0:0:1]:1"), key("[64:ff9b::1:0:0:2]:1"), "outside the /96: an IPv6 /64 as before")
	a, err := keyfunc.AddrKey("64:ff9b::102:304")
	require.NoError(t, err)
	require.Equal(t, "1.2.3.4/32", a)
}
