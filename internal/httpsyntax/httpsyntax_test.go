package httpsyntax

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsToken(t *testing.T) {
	for _, s := range []string{"GET", "X-RateLimit-Limit", "a", "!#$%&'*+-.^_`|~09azAZ"} {
		assert.True(t, IsToken(s), s)
	}
	for _, s := range []string{"", "a b", "a:b", "a\x00", "é", "a\"", "a(b)", "a/b", "a\x7f", "a,b", "a;b", "a=b", "{}", "a@b", "[a]", "a?", "a\\b"} {
		assert.False(t, IsToken(s), "%q", s)
	}
	// Every byte: exactly the tchars of RFC 9110.
	const tchars = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	n := 0
	for c := range 256 {
		if IsToken(string([]byte{byte(c)})) {
			n++
		}
	}
	assert.Equal(t, len(tchars), n)
}
