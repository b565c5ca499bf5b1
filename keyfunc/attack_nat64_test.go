package keyfunc_test

import (
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/stretchr/testify/assert"
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

// TestAttackNAT64NetworkSpecificPrefix: a translator on a prefix of the
// operator's own (SIIT-DC, or the local-use 64:ff9b:1::/48 of RFC 8215)
// put every IPv4 client in one IPv6 /64, one abuser throttling them all,
// and nothing could say otherwise. NAT64Prefixes names it, at each RFC 6052
// length (the addresses of RFC 6052 §2.4's table for 192.0.2.33), and each
// client is keyed as its IPv4 address.
func TestAttackNAT64NetworkSpecificPrefix(t *testing.T) {
	for prefix, addr := range map[string]string{
		"2001:db8::/32":         "2001:db8:c000:221::",
		"2001:db8:100::/40":     "2001:db8:1c0:2:21::",
		"2001:db8:122::/48":     "2001:db8:122:c000:2:2100::",
		"2001:db8:122:300::/56": "2001:db8:122:3c0:0:221::",
		"2001:db8:122:344::/64": "2001:db8:122:344:c0:2:2100:0",
		"2001:db8:122:344::/96": "2001:db8:122:344::192.0.2.33",
		"64:ff9b:1:2::/96":      "64:ff9b:1:2::192.0.2.33",
	} {
		k, err := keyfunc.ClientIP(keyfunc.IPOptions{NAT64Prefixes: []string{prefix}})
		require.NoError(t, err, prefix)
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "[" + addr + "]:443"
		got, err := k(r)
		require.NoError(t, err)
		assert.Equal(t, "192.0.2.33/32", got, prefix)
		plain, err := keyfunc.ClientIP(keyfunc.IPOptions{})
		require.NoError(t, err)
		got, err = plain(r)
		require.NoError(t, err)
		assert.NotEqual(t, "192.0.2.33/32", got, "%s: an IPv6 prefix without the option", prefix)
	}
	k, err := keyfunc.ClientIP(keyfunc.IPOptions{NAT64Prefixes: []string{"2001:db8:46::/96"}, TrustedHops: 1})
	require.NoError(t, err)
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[2001:db8:46::5]:1"
	r.Header.Set("X-Forwarded-For", "2001:db8:46::198.51.100.7")
	got, err := k(r)
	require.NoError(t, err)
	assert.Equal(t, "198.51.100.7/32", got, "a forwarded address too")
	for _, bad := range []string{"2001:db8::/33", "2001:db8::/128", "10.0.0.0/8", "::ffff:0:0/96", "nope", "2001:db8::1"} {
		_, err := keyfunc.ClientIP(keyfunc.IPOptions{NAT64Prefixes: []string{bad}})
		assert.ErrorIs(t, err, keyfunc.ErrInvalidOptions, bad)
	}
}
