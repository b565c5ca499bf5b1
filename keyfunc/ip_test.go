package keyfunc

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClientIPOptions(t *testing.T) {
	trusted := prefixes("10.0.0.0/8")
	tests := []struct {
		name string
		opts IPOptions
		ok   bool
	}{
		{"zero", IPOptions{}, true},
		{"trusted prefixes", IPOptions{TrustedProxies: trusted}, true},
		{"trusted strings", IPOptions{TrustedProxyCIDRs: []string{"10.0.0.0/8", "2001:db8::/32", "192.0.2.1", "::1"}}, true},
		{"hops", IPOptions{TrustedHops: 2}, true},
		{"forwarded with trust", IPOptions{TrustedProxies: trusted, Source: SourceForwarded}, true},
		{"none without trust", IPOptions{Source: SourceNone}, true},
		{"headers with trust", IPOptions{TrustedHops: 1, Headers: []string{"X-Real-IP", "cf-connecting-ip"}}, true},
		{"prefix bounds", IPOptions{IPv4Prefix: 8, IPv6Prefix: 128}, true},
		{"prefix bounds 2", IPOptions{IPv4Prefix: 32, IPv6Prefix: 32}, true},

		{"bad CIDR", IPOptions{TrustedProxyCIDRs: []string{"10.0.0.0/33"}}, false},
		{"garbage CIDR", IPOptions{TrustedProxyCIDRs: []string{"proxy.internal"}}, false},
		{"empty CIDR", IPOptions{TrustedProxyCIDRs: []string{""}}, false},
		{"zoned CIDR", IPOptions{TrustedProxyCIDRs: []string{"fe80::1%eth0"}}, false},
		{"invalid prefix", IPOptions{TrustedProxies: []netip.Prefix{{}}}, false},
		{"negative hops", IPOptions{TrustedHops: -1}, false},
		{"hops and prefixes", IPOptions{TrustedHops: 1, TrustedProxies: trusted}, false},
		{"hops and strings", IPOptions{TrustedHops: 1, TrustedProxyCIDRs: []string{"10.0.0.0/8"}}, false},
		{"forwarded without trust", IPOptions{Source: SourceForwarded}, false},
		{"unknown source", IPOptions{TrustedHops: 1, Source: Source(7)}, false},
		{"headers without trust", IPOptions{Headers: []string{"X-Real-IP"}}, false},
		{"bad header name", IPOptions{TrustedHops: 1, Headers: []string{"X Real IP"}}, false},
		{"empty header name", IPOptions{TrustedHops: 1, Headers: []string{""}}, false},
		{"xff as header", IPOptions{TrustedHops: 1, Headers: []string{"x-forwarded-for"}}, false},
		{"forwarded as header", IPOptions{TrustedHops: 1, Headers: []string{"Forwarded"}}, false},
		{"header twice", IPOptions{TrustedHops: 1, Headers: []string{"X-Real-IP", "x-real-ip"}}, false},
		{"v4 prefix low", IPOptions{IPv4Prefix: 7}, false},
		{"v4 prefix high", IPOptions{IPv4Prefix: 33}, false},
		{"v4 prefix negative", IPOptions{IPv4Prefix: -1}, false},
		{"v6 prefix low", IPOptions{IPv6Prefix: 31}, false},
		{"v6 prefix high", IPOptions{IPv6Prefix: 129}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ClientIP(tt.opts)
			if tt.ok {
				require.NoError(t, err)
				require.NotNil(t, f)
				return
			}
			require.ErrorIs(t, err, ErrInvalidOptions)
			assert.Nil(t, f)
		})
	}
}

func TestClientIPRemoteAddr(t *testing.T) {
	f := mustClientIP(t, IPOptions{})
	tests := []struct {
		remote string
		want   string // "" for an error
	}{
		{"198.51.100.7:1234", "198.51.100.7/32"},
		{"198.51.100.7", "198.51.100.7/32"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"2001:db8:1:2::9", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2::9]", "2001:db8:1:2::/64"},
		{"[::ffff:198.51.100.7]:80", "198.51.100.7/32"},
		{"::ffff:198.51.100.7", "198.51.100.7/32"},
		{"[::1]:80", "::/64"},
		{"127.0.0.1:0", "127.0.0.1/32"},

		{"", ""},
		{"@", ""},
		{"garbage", ""},
		{"garbage:80", ""},
		{"[fe80::1%eth0]:80", "fe80::%eth0/64"},
		{"fe80::1%eth0", "fe80::%eth0/64"},
		{"[fe80::1%a/b]:80", ""},
		{"198.51.100.7:", ""},
		{"198.51.100.7:65536", ""},
		{"198.51.100.7:http", ""},
		{"[198.51.100.7]:80", ""},
		{"[2001:db8::1]x", ""},
		{"[2001:db8::1", ""},
		{"010.1.2.3:80", ""},
		{"198.51.100.7:80:80", ""},
	}
	for _, tt := range tests {
		t.Run(tt.remote, func(t *testing.T) {
			got, err := f(newReq(tt.remote))
			// AppendClientIP appends the same key, or leaves the buffer.
			app, appErr := AppendClientIP([]byte("pre"), newReq(tt.remote))
			if tt.want == "" {
				require.ErrorIs(t, err, ErrNoKey)
				assert.Empty(t, got)
				require.ErrorIs(t, appErr, ErrNoKey)
				assert.Equal(t, "pre", string(app))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			require.NoError(t, appErr)
			assert.Equal(t, "pre"+tt.want, string(app))
		})
	}
}

// AppendClientIP into a buffer with room allocates nothing.
func TestAppendClientIPAllocations(t *testing.T) {
	for _, remote := range []string{"198.51.100.7:1234", "[2001:db8:1:2:3:4:5:6]:443"} {
		r := newReq(remote)
		var buf [64]byte
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := AppendClientIP(buf[:0], r); err != nil {
				t.Fatal(err)
			}
		})
		assert.Zero(t, allocs, remote)
	}
}

func TestClientIPUntrustedPeerIgnoresHeaders(t *testing.T) {
	opts := []IPOptions{
		{},
		{TrustedProxies: prefixes("10.0.0.0/8"), Headers: []string{"X-Real-IP"}},
		{TrustedProxies: prefixes("10.0.0.0/8"), Source: SourceForwarded},
	}
	for _, o := range opts {
		f := mustClientIP(t, o)
		got, err := f(newReq("192.0.2.1:5000",
			"X-Forwarded-For", "203.0.113.9",
			"Forwarded", "for=203.0.113.9",
			"X-Real-IP", "203.0.113.9"))
		require.NoError(t, err)
		assert.Equal(t, "192.0.2.1/32", got)
	}
}

func TestClientIPTrustedXFF(t *testing.T) {
	f := mustClientIP(t, IPOptions{TrustedProxies: prefixes("10.0.0.0/8", "2001:db8:ffff::/48")})
	const peer = "10.0.0.1:443"
	tests := []struct {
		name   string
		remote string
		xff    []string
		want   string
	}{
		{"no header", peer, nil, "10.0.0.1/32"},
		{"single", peer, []string{"203.0.113.9"}, "203.0.113.9/32"},
		{"skips trusted", peer, []string{"203.0.113.9, 10.0.0.2"}, "203.0.113.9/32"},
		{"skips trusted v6", peer, []string{"203.0.113.9, 2001:db8:ffff::1, 10.0.0.2"}, "203.0.113.9/32"},
		{"spoofed left ignored", peer, []string{"1.1.1.1, 6.6.6.6, 203.0.113.9, 10.0.0.2"}, "203.0.113.9/32"},
		{"all trusted is left-most", peer, []string{"10.0.0.5, 10.0.0.6"}, "10.0.0.5/32"},
		{"v6 client", peer, []string{"2001:db8:1:2::3"}, "2001:db8:1:2::/64"},
		{"v4 port", peer, []string{"203.0.113.9:5555"}, "203.0.113.9/32"},
		{"v6 port", peer, []string{"[2001:db8:1:2::3]:443"}, "2001:db8:1:2::/64"},
		{"whitespace", peer, []string{" \t203.0.113.9 ,\t10.0.0.2 "}, "203.0.113.9/32"},
		{"mapped client", peer, []string{"::ffff:203.0.113.9"}, "203.0.113.9/32"},
		{"mapped trusted skipped", peer, []string{"203.0.113.9, ::ffff:10.0.0.9"}, "203.0.113.9/32"},
		{"mapped peer trusted", "[::ffff:10.0.0.5]:80", []string{"203.0.113.9"}, "203.0.113.9/32"},
		{"v6 peer trusted", "[2001:db8:ffff::7]:80", []string{"203.0.113.9"}, "203.0.113.9/32"},
		{"lines merged in order", peer, []string{"203.0.113.9", "10.0.0.3, 10.0.0.4"}, "203.0.113.9/32"},
		{"attacker line first", peer, []string{"6.6.6.6", "203.0.113.9"}, "203.0.113.9/32"},
		{"garbage left of client ignored", peer, []string{"nope, 203.0.113.9"}, "203.0.113.9/32"},
		{"empty left of client ignored", peer, []string{"", "203.0.113.9"}, "203.0.113.9/32"},

		{"empty line fails closed", peer, []string{""}, "10.0.0.1/32"},
		{"blank line fails closed", peer, []string{"  "}, "10.0.0.1/32"},
		{"trailing comma fails closed", peer, []string{"203.0.113.9,"}, "10.0.0.1/32"},
		{"empty entry fails closed", peer, []string{"203.0.113.9,,10.0.0.2"}, "10.0.0.1/32"},
		{"garbage fails closed", peer, []string{"203.0.113.9, nope"}, "10.0.0.1/32"},
		{"garbage behind trusted fails closed", peer, []string{"nope, 10.0.0.2"}, "10.0.0.1/32"},
		{"unknown fails closed", peer, []string{"unknown"}, "10.0.0.1/32"},
		{"zone refused", peer, []string{"fe80::1%eth0"}, "10.0.0.1/32"},
		{"zone with port refused", peer, []string{"[fe80::1%eth0]:80"}, "10.0.0.1/32"},
		{"leading zeros refused", peer, []string{"010.0.0.1"}, "10.0.0.1/32"},
		{"bad port refused", peer, []string{"203.0.113.9:99999"}, "10.0.0.1/32"},
		{"bare garbage line last", peer, []string{"203.0.113.9", "x"}, "10.0.0.1/32"},
		{"hostname refused", peer, []string{"client.example"}, "10.0.0.1/32"},
		{"untrusted peer", "192.0.2.1:1", []string{"203.0.113.9"}, "192.0.2.1/32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReq(tt.remote)
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			got, err := f(r)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestClientIPHops(t *testing.T) {
	const peer = "192.0.2.1:443"
	tests := []struct {
		hops int
		xff  []string
		want string
	}{
		{1, nil, "192.0.2.1/32"},
		{1, []string{"203.0.113.9"}, "203.0.113.9/32"},
		{1, []string{"6.6.6.6, 203.0.113.9"}, "203.0.113.9/32"},
		{1, []string{"6.6.6.6", "203.0.113.9"}, "203.0.113.9/32"},
		{2, []string{"6.6.6.6, 203.0.113.9, 198.51.100.1"}, "203.0.113.9/32"},
		{2, []string{"6.6.6.6, 203.0.113.9", "198.51.100.1"}, "203.0.113.9/32"},
		{2, []string{"garbage, 203.0.113.9, 198.51.100.1"}, "203.0.113.9/32"},
		{3, []string{"203.0.113.9, 198.51.100.2, 198.51.100.1"}, "203.0.113.9/32"},

		// Shorter than the hop count: RemoteAddr, never the left-most entry.
		{2, []string{"203.0.113.9"}, "192.0.2.1/32"},
		{3, []string{"203.0.113.9, 198.51.100.1"}, "192.0.2.1/32"},
		{3, []string{"203.0.113.9", "198.51.100.1"}, "192.0.2.1/32"},
		// Unusable entries reached fail closed.
		{2, []string{"203.0.113.9, garbage"}, "192.0.2.1/32"},
		{2, []string{"garbage, 198.51.100.1"}, "192.0.2.1/32"},
		{1, []string{""}, "192.0.2.1/32"},
	}
	for _, tt := range tests {
		f := mustClientIP(t, IPOptions{TrustedHops: tt.hops})
		r := newReq(peer)
		for _, v := range tt.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		got, err := f(r)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "hops %d, XFF %q", tt.hops, tt.xff)
	}
}

func TestClientIPForwarded(t *testing.T) {
	f := mustClientIP(t, IPOptions{TrustedProxies: prefixes("10.0.0.0/8"), Source: SourceForwarded})
	const peer = "10.0.0.1:443"
	const fallback = "10.0.0.1/32"
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"no header", nil, fallback},
		{"token", []string{"for=203.0.113.9"}, "203.0.113.9/32"},
		{"with other params", []string{"for=192.0.2.60;proto=http;by=203.0.113.43"}, "192.0.2.60/32"},
		{"for not first", []string{"proto=https;for=192.0.2.60"}, "192.0.2.60/32"},
		{"name case", []string{"For=203.0.113.9"}, "203.0.113.9/32"},
		{"quoted v6 port", []string{`for="[2001:db8:cafe::17]:4711"`}, "2001:db8:cafe::/64"},
		{"quoted v6", []string{`for="[2001:db8:cafe::17]"`}, "2001:db8:cafe::/64"},
		{"quoted v4 port", []string{`for="203.0.113.9:80"`}, "203.0.113.9/32"},
		{"obfuscated port", []string{`for="[2001:db8:cafe::17]:_p1"`}, "2001:db8:cafe::/64"},
		{"unquoted v4 port", []string{"for=203.0.113.9:80"}, "203.0.113.9/32"},
		{"unquoted brackets", []string{"for=[2001:db8:cafe::17]"}, "2001:db8:cafe::/64"},
		{"quoted pair", []string{`for="203.0.113.\9"`}, "203.0.113.9/32"},
		{"mapped", []string{`for="[::ffff:203.0.113.9]"`}, "203.0.113.9/32"},
		{"skips trusted", []string{"for=203.0.113.9, for=10.0.0.2"}, "203.0.113.9/32"},
		{"spoofed left ignored", []string{"for=6.6.6.6, for=203.0.113.9;proto=https, for=10.0.0.2"}, "203.0.113.9/32"},
		{"lines merged", []string{"for=6.6.6.6", "for=203.0.113.9"}, "203.0.113.9/32"},
		{"whitespace", []string{" for=203.0.113.9 ; proto=http , for=10.0.0.2 "}, "203.0.113.9/32"},
		{"quoted comma left", []string{`for="6.6.6.6, for=7.7.7.7", for=203.0.113.9`}, "203.0.113.9/32"},
		{"unknown left ignored", []string{"for=unknown, for=203.0.113.9"}, "203.0.113.9/32"},
		{"empty pairs", []string{";for=203.0.113.9;;"}, "203.0.113.9/32"},

		{"unknown", []string{"for=unknown"}, fallback},
		{"unknown behind trusted", []string{"for=unknown, for=10.0.0.2"}, fallback},
		{"obfuscated", []string{"for=_hidden"}, fallback},
		{"obfuscated quoted", []string{`for="_hidden:80"`}, fallback},
		{"no for", []string{"proto=https;by=10.0.0.1"}, fallback},
		{"duplicate for", []string{"for=203.0.113.9;for=198.51.100.1"}, fallback},
		{"empty value", []string{`for=""`}, fallback},
		{"missing value", []string{"for="}, fallback},
		{"unterminated", []string{`for="203.0.113.9`}, fallback},
		{"unterminated left of the client ignored", []string{`for="6.6.6.6, for=203.0.113.9`}, "203.0.113.9/32"},
		{"bad char", []string{"for=203.0.113.9 x"}, fallback},
		{"no equals", []string{"for"}, fallback},
		{"empty line", []string{""}, fallback},
		{"empty element", []string{"for=203.0.113.9,"}, fallback},
		{"zone", []string{`for="[fe80::1%eth0]"`}, fallback},
		{"unbracketed v6 port", []string{`for="2001:db8::1:80"`}, "2001:db8::/64"},
		{"garbage", []string{"for=nope"}, fallback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReq(peer, "X-Forwarded-For", "198.51.100.99")
			for _, v := range tt.lines {
				r.Header.Add("Forwarded", v)
			}
			got, err := f(r)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestClientIPNamedHeaders(t *testing.T) {
	f := mustClientIP(t, IPOptions{
		TrustedProxies: prefixes("10.0.0.0/8"),
		Headers:        []string{"X-Real-IP", "CF-Connecting-IP"},
	})
	const peer = "10.0.0.1:443"
	tests := []struct {
		name   string
		remote string
		hdr    []string
		want   string
	}{
		{"untrusted peer", "192.0.2.1:1", []string{"X-Real-IP", "203.0.113.9"}, "192.0.2.1/32"},
		{"x-real-ip", peer, []string{"X-Real-IP", "203.0.113.9"}, "203.0.113.9/32"},
		{"second header", peer, []string{"CF-Connecting-IP", "203.0.113.9"}, "203.0.113.9/32"},
		{"order", peer, []string{"CF-Connecting-IP", "198.51.100.1", "X-Real-IP", "203.0.113.9"}, "203.0.113.9/32"},
		{"before xff", peer, []string{"X-Forwarded-For", "198.51.100.1", "X-Real-IP", "203.0.113.9"}, "203.0.113.9/32"},
		{"xff when absent", peer, []string{"X-Forwarded-For", "198.51.100.1"}, "198.51.100.1/32"},
		{"port", peer, []string{"X-Real-IP", "[2001:db8::1]:80"}, "2001:db8::/64"},
		{"mapped", peer, []string{"X-Real-IP", "::ffff:203.0.113.9"}, "203.0.113.9/32"},
		{"trusted value is kept", peer, []string{"X-Real-IP", "10.0.0.9"}, "10.0.0.9/32"},
		{"unnamed ignored", peer, []string{"True-Client-IP", "203.0.113.9"}, "10.0.0.1/32"},

		{"garbage fails closed", peer, []string{"X-Real-IP", "nope", "X-Forwarded-For", "198.51.100.1"}, "10.0.0.1/32"},
		{"empty fails closed", peer, []string{"X-Real-IP", "", "CF-Connecting-IP", "198.51.100.1"}, "10.0.0.1/32"},
		{"two lines: the last", peer, []string{"X-Real-IP", "198.51.100.1", "X-Real-IP", "203.0.113.9"}, "203.0.113.9/32"},
		{"garbage line before the last ignored", peer, []string{"X-Real-IP", "nope", "X-Real-IP", "203.0.113.9"}, "203.0.113.9/32"},
		{"garbage last line fails closed", peer, []string{"X-Real-IP", "203.0.113.9", "X-Real-IP", "nope"}, "10.0.0.1/32"},
		{"list fails closed", peer, []string{"X-Real-IP", "203.0.113.9, 198.51.100.1"}, "10.0.0.1/32"},
		{"zone fails closed", peer, []string{"X-Real-IP", "fe80::1%eth0"}, "10.0.0.1/32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f(newReq(tt.remote, tt.hdr...))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	t.Run("source none", func(t *testing.T) {
		f := mustClientIP(t, IPOptions{TrustedHops: 1, Source: SourceNone, Headers: []string{"True-Client-IP"}})
		got, err := f(newReq(peer, "X-Forwarded-For", "198.51.100.1"))
		require.NoError(t, err)
		assert.Equal(t, "10.0.0.1/32", got)
		got, err = f(newReq(peer, "X-Forwarded-For", "198.51.100.1", "True-Client-IP", "203.0.113.9"))
		require.NoError(t, err)
		assert.Equal(t, "203.0.113.9/32", got)
	})
}

func TestClientIPPrefixes(t *testing.T) {
	tests := []struct {
		v4, v6 int
		remote string
		want   string
	}{
		{0, 0, "198.51.100.7", "198.51.100.7/32"},
		{24, 0, "198.51.100.7", "198.51.100.0/24"},
		{8, 0, "198.51.100.7", "198.0.0.0/8"},
		{24, 0, "::ffff:198.51.100.7", "198.51.100.0/24"},
		{0, 0, "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{0, 48, "2001:db8:1:2:3:4:5:6", "2001:db8:1::/48"},
		{0, 32, "2001:db8:1:2:3:4:5:6", "2001:db8::/32"},
		{0, 56, "2001:db8:1:2ff:3:4:5:6", "2001:db8:1:200::/56"},
		{0, 128, "2001:db8:1:2:3:4:5:6", "2001:db8:1:2:3:4:5:6/128"},
		{0, 128, "2001:DB8::1", "2001:db8::1/128"},
	}
	for _, tt := range tests {
		f := mustClientIP(t, IPOptions{IPv4Prefix: tt.v4, IPv6Prefix: tt.v6})
		got, err := f(newReq(tt.remote))
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "%+v", tt)
	}
}

func TestClientIPTrustedProxyForms(t *testing.T) {
	tests := []struct {
		name    string
		opts    IPOptions
		remote  string
		trusted bool
	}{
		{"cidr string", IPOptions{TrustedProxyCIDRs: []string{"10.0.0.0/8"}}, "10.9.9.9:1", true},
		{"address string", IPOptions{TrustedProxyCIDRs: []string{"192.0.2.1"}}, "192.0.2.1:1", true},
		{"address string other", IPOptions{TrustedProxyCIDRs: []string{"192.0.2.1"}}, "192.0.2.2:1", false},
		{"unmasked cidr string", IPOptions{TrustedProxyCIDRs: []string{"10.1.2.3/8"}}, "10.200.0.1:1", true},
		{"mapped cidr string", IPOptions{TrustedProxyCIDRs: []string{"::ffff:10.0.0.0/104"}}, "10.0.0.5:1", true},
		{"mapped address string", IPOptions{TrustedProxyCIDRs: []string{"::ffff:10.0.0.5"}}, "10.0.0.5:1", true},
		{"mapped prefix", IPOptions{TrustedProxies: prefixes("::ffff:10.0.0.0/104")}, "[::ffff:10.0.0.5]:1", true},
		{"mapped peer v4 prefix", IPOptions{TrustedProxies: prefixes("10.0.0.0/8")}, "[::ffff:10.0.0.5]:1", true},
		{"unmasked prefix", IPOptions{TrustedProxies: []netip.Prefix{netip.PrefixFrom(netip.MustParseAddr("10.1.2.3"), 8)}}, "10.200.0.1:1", true},
		{"v6 prefix", IPOptions{TrustedProxies: prefixes("2001:db8::/32")}, "[2001:db8:5::1]:1", true},
		{"v6 prefix other", IPOptions{TrustedProxies: prefixes("2001:db8::/32")}, "[2001:db9::1]:1", false},
		{"v6 prefix does not cover v4", IPOptions{TrustedProxies: prefixes("::/8")}, "10.0.0.5:1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustClientIP(t, tt.opts)
			got, err := f(newReq(tt.remote, "X-Forwarded-For", "203.0.113.9"))
			require.NoError(t, err)
			if tt.trusted {
				assert.Equal(t, "203.0.113.9/32", got)
			} else {
				assert.NotEqual(t, "203.0.113.9/32", got)
			}
		})
	}
}

func TestSourceString(t *testing.T) {
	assert.Equal(t, "X-Forwarded-For", SourceXForwardedFor.String())
	assert.Equal(t, "Forwarded", SourceForwarded.String())
	assert.Equal(t, "none", SourceNone.String())
	assert.Equal(t, "Source(9)", Source(9).String())
}

func TestAddrKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":        "192.0.2.7/32",
		"::ffff:192.0.2.7": "192.0.2.7/32",
		"2001:db8:1:2:3::": "2001:db8:1:2::/64",
		"fe80::1%eth0":     "fe80::%eth0/64",
	} {
		got, err := AddrKey(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "nope", "fe80::1%a/b", "192.0.2.7:80", "[fe80::1%eth0]"} {
		_, err := AddrKey(bad)
		assert.ErrorIs(t, err, ErrNoKey, bad)
	}
}
