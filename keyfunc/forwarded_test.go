package keyfunc

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseForwarded(t *testing.T) {
	// Each element's for= address, or "-" for an unusable element.
	tests := []struct {
		line string
		want []string
	}{
		{"for=192.0.2.60;proto=http;by=203.0.113.43", []string{"192.0.2.60"}},
		{"for=192.0.2.43, for=198.51.100.17", []string{"192.0.2.43", "198.51.100.17"}},
		{`for="[2001:db8:cafe::17]:4711"`, []string{"2001:db8:cafe::17"}},
		{`for="_gazonk"`, []string{"-"}},
		{"For=unknown, for=192.0.2.1", []string{"-", "192.0.2.1"}},
		{"FOR=UNKNOWN", []string{"-"}},
		{"by=203.0.113.43", []string{"-"}},
		{"", []string{"-"}},
		{",", []string{"-", "-"}},
		{" , for=192.0.2.1 ", []string{"-", "192.0.2.1"}},
		{";;for=192.0.2.1;", []string{"192.0.2.1"}},
		{"for=192.0.2.1;for=192.0.2.2", []string{"-"}},
		{"for=192.0.2.1;FOR=192.0.2.1", []string{"-"}},
		{`for="192.0.2.1`, []string{"-"}},
		{`for="a, for=192.0.2.1`, []string{"-", "192.0.2.1"}},
		{`for="a, b", for=192.0.2.1`, []string{"-", "192.0.2.1"}},
		{`for="a;b";proto=x, for=192.0.2.1`, []string{"-", "192.0.2.1"}},
		{`for="\"", for=192.0.2.1`, []string{"-", "192.0.2.1"}},
		{`for="192.0.2.\1"`, []string{"192.0.2.1"}},
		{`for="192.0.2.1\`, []string{"-"}},
		{"for=192.0.2.1, garbage, for=192.0.2.2", []string{"192.0.2.1", "-", "192.0.2.2"}},
		{`for="a\\", for=192.0.2.1`, []string{"-", "192.0.2.1"}},
		{`for="\"a,b", for=192.0.2.1`, []string{"-", "192.0.2.1"}},
		{`for="[2001:db8::1]:80";host="a,b", for=192.0.2.1`, []string{"2001:db8::1", "192.0.2.1"}},
		{`"x, for=192.0.2.1`, []string{"-", "192.0.2.1"}},
		{"for=192.0.2.1 for=192.0.2.2", []string{"-"}},
		{"for =192.0.2.1", []string{"-"}},
		{"for= 192.0.2.1", []string{"-"}},
		{"=192.0.2.1", []string{"-"}},
		{"for=192.0.2.1\x00", []string{"-"}},
		{"for=\"192.0.2.1\x01\"", []string{"-"}},
		{"for=192.0.2.1:80, for=[2001:db8::1]:80", []string{"192.0.2.1", "2001:db8::1"}},
		{"for=192.0.2.1:_hidden", []string{"192.0.2.1"}},
	}
	for _, tt := range tests {
		var got []string
		for a, ok := range forwardedEntries([]string{tt.line}) {
			if ok {
				got = append(got, a.String())
			} else {
				got = append(got, "-")
			}
		}
		slices.Reverse(got)
		assert.Equal(t, tt.want, got, "%q", tt.line)
	}
}

func TestForwardedEntriesOrder(t *testing.T) {
	var got []string
	for a, ok := range forwardedEntries([]string{"for=192.0.2.1, for=192.0.2.2", "for=192.0.2.3", "for=x"}) {
		if ok {
			got = append(got, a.String())
		} else {
			got = append(got, "-")
		}
	}
	assert.Equal(t, []string{"-", "192.0.2.3", "192.0.2.2", "192.0.2.1"}, got)
}

func TestXFFEntriesOrder(t *testing.T) {
	var got []string
	for a, ok := range xffEntries([]string{"192.0.2.1, 192.0.2.2", "", "192.0.2.3,x"}) {
		if ok {
			got = append(got, a.String())
		} else {
			got = append(got, "-")
		}
	}
	assert.Equal(t, []string{"-", "192.0.2.3", "-", "192.0.2.2", "192.0.2.1"}, got)
}
