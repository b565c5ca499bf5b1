package keyfunc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A proxy that reaches the application over a Unix socket (nginx's
// proxy_pass http://unix:/run/app.sock) is a peer without an IP address:
// net/http sets RemoteAddr to "@" or "". TrustedHops takes every peer as a
// proxy, whatever its address, for proxies whose addresses are not known;
// yet ClientIP gave up on the peer's address before reading the headers
// the proxy wrote, so that every request was refused (ErrNoKey; 403 under
// the middleware). With hops, the client the headers name is keyed;
// without a usable header, the request still has no key.
func TestUnixSocketPeerWithTrustedHops(t *testing.T) {
	xff := mustClientIP(t, IPOptions{TrustedHops: 1})
	fwd := mustClientIP(t, IPOptions{TrustedHops: 1, Source: SourceForwarded})
	real := mustClientIP(t, IPOptions{TrustedHops: 1, Headers: []string{"X-Real-IP"}, Source: SourceNone})
	for _, remote := range []string{"@", ""} {
		k, err := xff(newReq(remote, "X-Forwarded-For", "203.0.113.9, 198.51.100.7"))
		require.NoError(t, err, "RemoteAddr %q", remote)
		assert.Equal(t, "198.51.100.7/32", k)
		k, err = fwd(newReq(remote, "Forwarded", `for="[2001:db8:1:2::9]:443"`))
		require.NoError(t, err, "RemoteAddr %q", remote)
		assert.Equal(t, "2001:db8:1:2::/64", k)
		k, err = real(newReq(remote, "X-Real-IP", "198.51.100.8"))
		require.NoError(t, err, "RemoteAddr %q", remote)
		assert.Equal(t, "198.51.100.8/32", k)

		// Nothing usable to key by: no key, as before.
		for _, r := range [][]string{nil, {"X-Forwarded-For", "garbage"}, {"X-Forwarded-For", ""}} {
			k, err = xff(newReq(remote, r...))
			require.ErrorIs(t, err, ErrNoKey, "RemoteAddr %q, %q", remote, r)
			assert.Empty(t, k)
		}
	}
	// Trusted networks cannot hold a peer without an address: its headers
	// are not read.
	nets := mustClientIP(t, IPOptions{TrustedProxyCIDRs: []string{"10.0.0.0/8"}})
	_, err := nets(newReq("@", "X-Forwarded-For", "198.51.100.7"))
	require.ErrorIs(t, err, ErrNoKey)
}
