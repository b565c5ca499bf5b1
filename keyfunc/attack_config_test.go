package keyfunc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Trusting proxies while reading no forwarding header (Source none, no
// Headers) keys every request through a proxy by the proxy's address: with
// TrustedHops every request at all, so that all clients share one bucket and
// one abuser throttles them all. Such options are refused, as Headers
// without trust are, rather than accepted silently.
func TestAttackTrustReadingNothingIsRefused(t *testing.T) {
	for name, opts := range map[string]IPOptions{
		"hops":     {TrustedHops: 1, Source: SourceNone},
		"prefixes": {TrustedProxies: prefixes("10.0.0.0/8"), Source: SourceNone},
		"cidrs":    {TrustedProxyCIDRs: []string{"10.0.0.0/8"}, Source: SourceNone},
	} {
		t.Run(name, func(t *testing.T) {
			f, err := ClientIP(opts)
			require.ErrorIs(t, err, ErrInvalidOptions)
			assert.Nil(t, f)
		})
	}
	// Source none stays valid without trust (the zero options' behaviour)
	// and with a header to read.
	for _, opts := range []IPOptions{
		{Source: SourceNone},
		{TrustedHops: 1, Source: SourceNone, Headers: []string{"X-Real-IP"}},
		{TrustedProxies: prefixes("10.0.0.0/8"), Source: SourceNone, Headers: []string{"X-Real-IP"}},
	} {
		_, err := ClientIP(opts)
		require.NoError(t, err, "%+v", opts)
	}
}

// A trusted network of every address (0.0.0.0/0, ::/0, ::ffff:0.0.0.0/96)
// holds every client too: the walk skips the address the proxy appended for
// the client as a trusted proxy's and keys the request by the left-most
// entry, which the client writes, so that every request may pick a fresh
// key. Such a network is refused (TrustedHops is the option for "every peer
// is a proxy").
func TestAttackTrustingEveryAddressIsRefused(t *testing.T) {
	for _, cidr := range []string{"0.0.0.0/0", "::/0", "::ffff:0.0.0.0/96", "10.0.0.1/0"} {
		f, err := ClientIP(IPOptions{TrustedProxyCIDRs: []string{cidr}})
		require.ErrorIs(t, err, ErrInvalidOptions, cidr)
		assert.Nil(t, f, cidr)
		f, err = ClientIP(IPOptions{TrustedProxies: prefixes(cidr)})
		require.ErrorIs(t, err, ErrInvalidOptions, cidr)
		assert.Nil(t, f, cidr)
	}
}

// Trusted networks that together hold every address of a family are
// refused like one network of every address: 0.0.0.0/1 with 128.0.0.0/1
// was accepted, and every request then got a fresh key the client chose
// (found by a new user's review). Sets with a gap, however small, and
// networks of the other family only, are accepted.
func TestAttackTrustedNetworksCoveringEveryAddressAreRefused(t *testing.T) {
	t.Parallel()
	for _, set := range [][]string{
		{"0.0.0.0/1", "128.0.0.0/1"},
		{"::/1", "8000::/1"},
		{"192.0.0.0/2", "0.0.0.0/2", "128.0.0.0/2", "64.0.0.0/2"},
		{"0.0.0.0/1", "64.0.0.0/2", "128.0.0.0/1", "10.0.0.0/8"},
		{"2001:db8::/32", "::/1", "8000::/2", "c000::/2"},
		{"0.0.0.0/1", "::ffff:128.0.0.0/97"},
	} {
		f, err := ClientIP(IPOptions{TrustedProxyCIDRs: set})
		require.ErrorIs(t, err, ErrInvalidOptions, "%v", set)
		assert.Nil(t, f, "%v", set)
	}
	for _, set := range [][]string{
		{"0.0.0.0/1"},
		{"10.0.0.0/8", "192.168.0.0/16", "172.16.0.0/12"},
		{"0.0.0.0/2", "128.0.0.0/1"}, // 64.0.0.0/2 missing
		{"0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3", "224.0.0.0/4", "240.0.0.0/5", "248.0.0.0/6", "252.0.0.0/7", "254.0.0.0/8", "255.0.0.0/9", "255.128.0.0/10"}, // the top missing
		{"::/1", "0.0.0.0/1"},        // half of each family
		{"0.0.0.0/1", "128.0.0.0/2"}, // 192.0.0.0/2 missing
	} {
		_, err := ClientIP(IPOptions{TrustedProxyCIDRs: set})
		require.NoError(t, err, "%v", set)
	}
}
