package keyfunc

import (
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

func TestIsToken(t *testing.T) {
	for _, s := range []string{"X-Real-IP", "a", "x!#$%&'*+-.^_`|~9"} {
		assert.True(t, isToken(s), s)
	}
	for _, s := range []string{"", "a b", "a:b", "a\x00", "ä", "a,b", `a"`} {
		assert.False(t, isToken(s), s)
	}
}
