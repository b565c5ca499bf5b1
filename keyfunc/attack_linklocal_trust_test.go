package keyfunc_test

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackLinkLocalPeerTrustedOnAnyLink: a link-local peer was trusted
// by the networks that hold its address whatever the link it came in by.
// Link-local addresses are chosen by each host, and the same address on
// two links is two hosts: a proxy trusted as fe80::1 (on eth0, say) was
// trusted as well in any host that gave itself fe80::1 on another link of
// the server (a container's veth, a guest network), whose
// X-Forwarded-For then named any client it liked: a fresh budget per
// request, or a victim's spent. The configuration cannot name a link
// (a netip.Prefix has no zone), so a link-local peer is now never a
// trusted proxy (but with TrustedHops, where every peer is one): it is
// the client, keyed by its link.
func TestAttackLinkLocalPeerTrustedOnAnyLink(t *testing.T) {
	t.Parallel()
	for _, opts := range []keyfunc.IPOptions{
		{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("fe80::1/128")}},
		{TrustedProxyCIDRs: []string{"fe80::/10"}},
		{TrustedProxyCIDRs: []string{"fe80::1"}, Source: keyfunc.SourceForwarded},
	} {
		f, err := keyfunc.ClientIP(opts)
		require.NoError(t, err)
		for _, remote := range []string{"[fe80::1%veth7]:1", "[fe80::1%eth0]:1"} {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = remote
			r.Header.Set("X-Forwarded-For", "198.51.100.7")
			r.Header.Set("Forwarded", "for=198.51.100.7")
			got, err := f(r)
			require.NoError(t, err)
			assert.NotEqual(t, "198.51.100.7/32", got, "%s named the client: trusted on any link", remote)
		}
	}
	// With TrustedHops every peer is a proxy, a link-local one too.
	f, err := keyfunc.ClientIP(keyfunc.IPOptions{TrustedHops: 1})
	require.NoError(t, err)
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[fe80::1%eth0]:1"
	r.Header.Set("X-Forwarded-For", "198.51.100.7")
	got, err := f(r)
	require.NoError(t, err)
	assert.Equal(t, "198.51.100.7/32", got)
}
