package keyfunc

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spoofHeaders are the forwarding headers an attacker may send.
var spoofHeaders = []string{"X-Forwarded-For", "X-Real-IP", "Forwarded", "True-Client-IP", "CF-Connecting-IP"}

// spoofValue returns a random value an attacker could put in a forwarding
// header: addresses in any form, lists, Forwarded syntax and garbage.
func spoofValue(rng *rand.Rand) string {
	a := randAddr(rng)
	switch rng.IntN(8) {
	case 0:
		return a.String()
	case 1:
		return netip.AddrPortFrom(a, uint16(rng.Uint32())).String()
	case 2:
		return fmt.Sprintf("%s, %s, 10.0.0.1", a, randAddr(rng))
	case 3:
		return fmt.Sprintf("for=%q;proto=https, for=10.0.0.2", netip.AddrPortFrom(a, 443).String())
	case 4:
		return "for=" + a.String()
	case 5:
		b := a.As16()
		return "::ffff:" + netip.AddrFrom4([4]byte(b[12:16])).String()
	case 6:
		return ""
	default:
		return randString(rng, "0123456789abcdef.:[]%,; =\"_unknowfr", 40)
	}
}

func TestSpoofUntrustedPeerKeepsItsKey(t *testing.T) {
	all := []string{"X-Real-IP", "True-Client-IP", "CF-Connecting-IP"}
	trusted := prefixes("10.0.0.0/8", "2001:db8:ffff::/48")
	configs := map[string]IPOptions{
		"xff":       {TrustedProxies: trusted, Headers: all},
		"forwarded": {TrustedProxies: trusted, Headers: all, Source: SourceForwarded},
		"none":      {TrustedProxies: trusted, Headers: all, Source: SourceNone},
		"default":   {},
	}
	for name, opts := range configs {
		t.Run(name, func(t *testing.T) {
			f := mustClientIP(t, opts)
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range 10_000 {
				r := newReq("192.0.2.77:40000")
				for _, h := range spoofHeaders {
					for range rng.IntN(3) {
						r.Header.Add(h, spoofValue(rng))
					}
				}
				got, err := f(r)
				require.NoError(t, err)
				require.Equal(t, "192.0.2.77/32", got, "request %d: %v", i, r.Header)
			}
		})
	}
}

func TestSpoofAttackerXFFLineFirst(t *testing.T) {
	// The attacker sends its own X-Forwarded-For line; the proxy appends a
	// second line with the address it saw. The proxy's view wins.
	f := mustClientIP(t, IPOptions{TrustedProxies: prefixes("10.0.0.0/8")})
	fh := mustClientIP(t, IPOptions{TrustedHops: 1})
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		r := newReq("10.0.0.1:443")
		r.Header.Add("X-Forwarded-For", spoofValue(rng))
		r.Header.Add("X-Forwarded-For", "198.51.100.23")
		got, err := f(r)
		require.NoError(t, err)
		require.Equal(t, "198.51.100.23/32", got, "%v", r.Header)
		got, err = fh(r)
		require.NoError(t, err)
		require.Equal(t, "198.51.100.23/32", got, "%v", r.Header)
	}
}

func TestSpoofAttackerForwardedLineFirst(t *testing.T) {
	f := mustClientIP(t, IPOptions{TrustedProxies: prefixes("10.0.0.0/8"), Source: SourceForwarded})
	rng := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		r := newReq("10.0.0.1:443")
		r.Header.Add("Forwarded", spoofValue(rng))
		r.Header.Add("Forwarded", `for="198.51.100.23:5000";proto=https`)
		got, err := f(r)
		require.NoError(t, err)
		require.Equal(t, "198.51.100.23/32", got, "%v", r.Header)
	}
}

func TestSpoofHopsAttackerPrefixedChain(t *testing.T) {
	// Two proxies in front: each appends its peer. Whatever the client
	// sent, the entry two hops from the right is the client's address as
	// the outer proxy saw it.
	f := mustClientIP(t, IPOptions{TrustedHops: 2})
	rng := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		sent := make([]string, rng.IntN(4))
		for i := range sent {
			sent[i] = randAddr(rng).String()
		}
		chain := strings.Join(append(sent, "198.51.100.23", "192.0.2.10"), ", ")
		got, err := f(newReq("192.0.2.11:443", "X-Forwarded-For", chain))
		require.NoError(t, err)
		require.Equal(t, "198.51.100.23/32", got, chain)
	}
}

func TestMappedPeerIsTrusted(t *testing.T) {
	f := mustClientIP(t, IPOptions{TrustedProxies: prefixes("10.0.0.0/8")})
	for _, remote := range []string{"[::ffff:10.0.0.5]:8080", "::ffff:10.0.0.5", "[::ffff:a00:5]:1"} {
		got, err := f(newReq(remote, "X-Forwarded-For", "203.0.113.9"))
		require.NoError(t, err)
		assert.Equal(t, "203.0.113.9/32", got, remote)
	}
}

func TestMappedAndPlainOneKey(t *testing.T) {
	f := mustClientIP(t, IPOptions{})
	for _, remote := range []string{"1.2.3.4", "1.2.3.4:1", "::ffff:1.2.3.4", "[::ffff:1.2.3.4]:80", "::ffff:102:304"} {
		got, err := f(newReq(remote))
		require.NoError(t, err)
		assert.Equal(t, "1.2.3.4/32", got, remote)
	}
	fx := mustClientIP(t, IPOptions{TrustedHops: 1})
	for _, v := range []string{"1.2.3.4", "::ffff:1.2.3.4", "[::ffff:1.2.3.4]:80"} {
		got, err := fx(newReq("192.0.2.1:1", "X-Forwarded-For", v))
		require.NoError(t, err)
		assert.Equal(t, "1.2.3.4/32", got, v)
	}
}

// A zone in a forwarding header names an interface of the proxy that
// wrote it: the header fails closed. (A link-local peer's own zone, in
// RemoteAddr, is its link: see TestLinkLocalPeerKeyedByLink.)
func TestZoneIDsRefused(t *testing.T) {
	f := mustClientIP(t, IPOptions{TrustedHops: 1, Headers: []string{"X-Real-IP"}})
	got, err := f(newReq("[fe80::1%eth0]:80"))
	require.NoError(t, err)
	assert.Equal(t, "fe80::%eth0/64", got)
	for _, hdr := range [][]string{
		{"X-Forwarded-For", "fe80::1%eth0"},
		{"X-Forwarded-For", "[fe80::1%25eth0]:80"},
		{"X-Real-IP", "fe80::1%1"},
	} {
		got, err := f(newReq("192.0.2.1:1", hdr...))
		require.NoError(t, err)
		assert.Equal(t, "192.0.2.1/32", got, hdr)
	}
	ff := mustClientIP(t, IPOptions{TrustedHops: 1, Source: SourceForwarded})
	got, err = ff(newReq("192.0.2.1:1", "Forwarded", `for="[fe80::1%eth0]:80"`))
	require.NoError(t, err)
	assert.Equal(t, "192.0.2.1/32", got)
}

func TestOneKeyPer64(t *testing.T) {
	f := mustClientIP(t, IPOptions{})
	base := netip.MustParseAddr("2001:db8:1:2::").As16()
	rng := rand.New(rand.NewPCG(9, 10))
	for range 10_000 {
		a := base
		for i := 8; i < 16; i++ {
			a[i] = byte(rng.Uint32())
		}
		remote := netip.AddrPortFrom(netip.AddrFrom16(a), uint16(rng.Uint32())).String()
		got, err := f(newReq(remote))
		require.NoError(t, err)
		require.Equal(t, "2001:db8:1:2::/64", got, remote)
	}
}
