package keyfunc

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseNode(t *testing.T) {
	tests := []struct {
		in      string
		obfPort bool
		want    string // "" when refused
	}{
		{"192.0.2.1", false, "192.0.2.1"},
		{"192.0.2.1:80", false, "192.0.2.1"},
		{"192.0.2.1:0", false, "192.0.2.1"},
		{"192.0.2.1:65535", false, "192.0.2.1"},
		{"192.0.2.1:000000", false, "192.0.2.1"},
		{"192.0.2.1:0000000000000000000080", false, "192.0.2.1"},
		{"192.0.2.1:065535", false, "192.0.2.1"},
		{"[2001:db8::1]:000443", false, "2001:db8::1"},
		{"192.0.2.1:000080", true, "192.0.2.1"},
		{"2001:db8::1", false, "2001:db8::1"},
		{"[2001:db8::1]", false, "2001:db8::1"},
		{"[2001:db8::1]:443", false, "2001:db8::1"},
		{"::ffff:192.0.2.1", false, "192.0.2.1"},
		{"[::ffff:192.0.2.1]:80", false, "192.0.2.1"},
		{"::", false, "::"},
		{"0.0.0.0", false, "0.0.0.0"},
		{"192.0.2.1:_p", true, "192.0.2.1"},
		{"[2001:db8::1]:_a.b-c_d", true, "2001:db8::1"},

		{"", false, ""},
		{"192.0.2.1:_p", false, ""},
		{"192.0.2.1:_", true, ""},
		{"192.0.2.1:_a/b", true, ""},
		{"192.0.2.1:", false, ""},
		{"192.0.2.1:65536", false, ""},
		{"192.0.2.1:123456", false, ""},
		{"192.0.2.1:-1", false, ""},
		{"192.0.2.1:065536", false, ""},
		{"192.0.2.1:99999999999999999999999", false, ""},
		{"192.0.2.1:+80", false, ""},
		{"192.0.2.1: 80", false, ""},
		{"192.0.2.1:8_0", false, ""},
		{"192.0.2.1:0x50", false, ""},
		{"192.0.2.1:\u0668\u0660", false, ""},
		{"192.0.2.1:8a", false, ""},
		{"192.0.2", false, ""},
		{"192.0.2.256", false, ""},
		{"010.0.2.1", false, ""},
		{"host:80", false, ""},
		{"1:80", false, ""},
		{"[192.0.2.1]", false, ""},
		{"[192.0.2.1]:80", false, ""},
		{"[2001:db8::1", false, ""},
		{"[2001:db8::1]80", false, ""},
		{"[2001:db8::1]:", false, ""},
		{"[]:80", false, ""},
		{"fe80::1%eth0", false, ""},
		{"[fe80::1%eth0]:80", false, ""},
		{" 192.0.2.1", false, ""},
		{"unknown", false, ""},
		{"2001:db8::1/64", false, ""},
	}
	for _, tt := range tests {
		a, ok := parseNode(tt.in, tt.obfPort)
		if tt.want == "" {
			assert.False(t, ok, "%q", tt.in)
			continue
		}
		if assert.True(t, ok, "%q", tt.in) {
			assert.Equal(t, tt.want, a.String(), "%q", tt.in)
		}
	}
}

// parseNode reads "address:port" exactly as netip.ParseAddrPort does (the
// parser of the net/http peer's RemoteAddr): the same forms accepted, the
// same address, whatever the port's digits (leading zeros, overflow, signs,
// separators, non-ASCII digits). The one other form it accepts is a bare
// address, read whole ("2001:db8::1:80" is an IPv6 address: without
// brackets an IPv6 address carries no port).
func TestParseNodeAgreesWithParseAddrPort(t *testing.T) {
	hosts := []string{"192.0.2.1", "0.0.0.0", "[2001:db8::1]", "[::ffff:192.0.2.1]", "[::]", "2001:db8::1",
		"[192.0.2.1]", "010.0.0.1", "[fe80::1%eth0]", "", "[2001:db8::1"}
	ports := []string{"0", "1", "80", "080", "00000", "000000", "0000000000000000000000000", "65535", "0065535",
		"65536", "0065536", "99999", "18446744073709551696", "", "-0", "+1", " 1", "1 ", "8_0", "0x1",
		"\u0668", "\uff18\uff10", "_p"}
	for _, h := range hosts {
		for _, p := range ports {
			s := h + ":" + p
			want, err := netip.ParseAddrPort(s)
			wantOK := err == nil && want.Addr().Zone() == ""
			got, ok := parseNode(s, false)
			if wantOK {
				if assert.True(t, ok, "%q", s) {
					assert.Equal(t, want.Addr().Unmap(), got, "%q", s)
				}
				continue
			}
			if ok {
				bare, err := netip.ParseAddr(s)
				if assert.NoError(t, err, "%q is neither address:port nor an address", s) {
					assert.Equal(t, bare.Unmap(), got, "%q", s)
				}
			}
		}
	}
}
