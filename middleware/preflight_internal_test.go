package middleware

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A preflight's method is OPTIONS in any ASCII case, and nothing else:
// not a Unicode case fold of it.
func TestIsOptions(t *testing.T) {
	for _, m := range []string{"OPTIONS", "options", "OpTiOnS"} {
		assert.True(t, isOptions(m), m)
	}
	for _, m := range []string{"", "OPTION", "OPTIONSS", "OPTIONſ", "0PTIONS", "OPTIONS\x00", "GET", "OPTI0NS", "oPTIONs "} {
		assert.False(t, isOptions(m), "%q", m)
	}
}
