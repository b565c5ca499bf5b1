package routepath_test

import (
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/stretchr/testify/assert"
)

// A preflight's method is OPTIONS in any ASCII case, and nothing else:
// not a Unicode case fold of it.
func TestIsOptions(t *testing.T) {
	for _, m := range []string{"OPTIONS", "options", "OpTiOnS"} {
		assert.True(t, routepath.IsOptions(m), m)
	}
	for _, m := range []string{"", "OPTION", "OPTIONSS", "OPTIONſ", "0PTIONS", "OPTIONS\x00", "GET", "OPTI0NS", "oPTIONs "} {
		assert.False(t, routepath.IsOptions(m), "%q", m)
	}
}

func TestPreflight(t *testing.T) {
	r := httptest.NewRequest("options", "/x", nil)
	r.Header.Set("Origin", "https://app.example")
	r.Header.Set("Access-Control-Request-Method", "post")
	m, ok := routepath.Preflight(r)
	assert.True(t, ok)
	assert.Equal(t, "POST", m)
	r.Header.Set("Access-Control-Request-Method", "P O")
	_, ok = routepath.Preflight(r)
	assert.False(t, ok)
	r.Header.Del("Access-Control-Request-Method")
	_, ok = routepath.Preflight(r)
	assert.False(t, ok)
	r = httptest.NewRequest("OPTIONS", "/x", nil)
	r.Header.Set("Access-Control-Request-Method", "GET")
	_, ok = routepath.Preflight(r)
	assert.False(t, ok, "no Origin")
}

// A preflight reaching a handler is named as the OPTIONS request it is;
// any other request gets no pattern.
func TestPreflightPattern(t *testing.T) {
	r := httptest.NewRequest("OPTIONS", "/x", nil)
	assert.Equal(t, "", routepath.PreflightPattern(r, "/x"), "no preflight fields")
	r.Header.Set("Origin", "https://app.example")
	r.Header.Set("Access-Control-Request-Method", "GET")
	assert.Equal(t, "OPTIONS /users/:id", routepath.PreflightPattern(r, "/users/:id"))
	r.Method = "GET"
	assert.Equal(t, "", routepath.PreflightPattern(r, "/x"))
}
