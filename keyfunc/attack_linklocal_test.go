package keyfunc_test

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A peer on a link-local network reaches the application from an address
// with a zone, the interface it came in by ("[fe80::1%eth0]:1234", as
// net/http writes RemoteAddr): it is keyed by its link, the zone kept (the
// same address on two links is two hosts; every link is fe80::/64), and
// never refused, which would lock every link-local client out.
func TestLinkLocalPeerKeyedByLink(t *testing.T) {
	t.Parallel()
	def, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	require.NoError(t, err)
	host, err := keyfunc.ClientIP(keyfunc.IPOptions{IPv6Prefix: 128})
	require.NoError(t, err)
	for _, tc := range []struct{ remote, want, want128 string }{
		{"[fe80::1%eth0]:1234", "fe80::%eth0/64", "fe80::1%eth0/128"},
		{"[fe80::2%eth0]:1", "fe80::%eth0/64", "fe80::2%eth0/128"},
		{"[fe80::1%eth1]:1234", "fe80::%eth1/64", "fe80::1%eth1/128"},
		{"fe80::1%2", "fe80::%2/64", "fe80::1%2/128"},
		// A zone on an address that is not link-local names no link:
		// the address alone is the client.
		{"[2001:db8::1%eth0]:1", "2001:db8::/64", "2001:db8::1/128"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.remote
		got, err := def(r)
		require.NoError(t, err, tc.remote)
		assert.Equal(t, tc.want, got, tc.remote)
		app, err := keyfunc.AppendClientIP(nil, r)
		require.NoError(t, err, tc.remote)
		assert.Equal(t, tc.want, string(app), "AppendClientIP %s", tc.remote)
		got, err = host(r)
		require.NoError(t, err, tc.remote)
		assert.Equal(t, tc.want128, got, tc.remote)
	}
	for _, s := range []string{"fe80::1%eth0", "fe80::1%eth1", "2001:db8::1%eth0"} {
		a, err := keyfunc.AddrKey(s)
		require.NoError(t, err, "AddrKey, the adapters' opt-in, keys them alike: %s", s)
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "[" + s + "]:1"
		want, _ := def(r)
		assert.Equal(t, want, a, s)
	}
}

// A zone that no kernel writes (too long, or holding a '/' or '%' that
// would make the key ambiguous) is not a key: refused, not used.
func TestLinkLocalZoneOddRefused(t *testing.T) {
	t.Parallel()
	def, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	require.NoError(t, err)
	for _, remote := range []string{"[fe80::1%a/b]:1", "[fe80::1%a%b]:1", "[fe80::1%a b]:1",
		"[fe80::1%" + string(make([]byte, 40)) + "]:1", "[fe80::1%0123456789012345678901234567890123]:1"} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		_, err := def(r)
		require.ErrorIs(t, err, keyfunc.ErrNoKey, "%q", remote)
		_, err = keyfunc.AppendClientIP(nil, r)
		require.ErrorIs(t, err, keyfunc.ErrNoKey, "%q", remote)
	}
}

// A link-local peer is not trusted by networks, which name no link (see
// TestAttackLinkLocalPeerTrustedOnAnyLink): its headers are not read, a
// zone in them or not, and it is keyed by its link.
func TestLinkLocalTrustedProxy(t *testing.T) {
	t.Parallel()
	f, err := keyfunc.ClientIP(keyfunc.IPOptions{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("fe80::/64")}})
	require.NoError(t, err)
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[fe80::1%eth0]:1"
	for _, xff := range []string{"198.51.100.7", "fe80::9%eth3"} {
		r.Header.Set("X-Forwarded-For", xff)
		got, err := f(r)
		require.NoError(t, err)
		assert.Equal(t, "fe80::%eth0/64", got, "the peer is the client: %s", xff)
	}
}
