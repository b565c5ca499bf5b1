package keyfunc

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The client writes the method, any token it likes, and a handler
// registered without a method (mux.HandleFunc("/search", h)) serves every
// one of them. Keyed by Join(ClientIP, Method), as Method's documentation
// advised, one client had a bucket per token it sent: 100 tokens ("get",
// "Get", "X1", …) gave 100 keys, so that a limit of 2 a minute served 100
// requests. Only the methods of RFC 9110 and PATCH keep keys of their own,
// HEAD that of GET (ServeMux serves HEAD with GET's handler); every other
// token shares one.
func TestAttackMethodTokensShareOneKey(t *testing.T) {
	ip := mustClientIP(t, IPOptions{})
	key := Join(ip, Method)
	keys := map[string]bool{}
	for i := range 100 {
		r := newReq("192.0.2.1:1")
		switch i % 4 {
		case 0:
			r.Method = fmt.Sprintf("X%d", i)
		case 1:
			r.Method = strings.ToLower(http.MethodGet) + fmt.Sprint(i)
		case 2:
			r.Method = "pOsT" + strings.Repeat("T", i)
		default:
			r.Method = fmt.Sprintf("PROPFIND%d", i)
		}
		k, err := key(r)
		require.NoError(t, err)
		keys[k] = true
	}
	assert.Equal(t, 1, len(keys), "keys of one client's made-up methods")

	// The standard methods keep their own keys, HEAD GET's.
	got := map[string]string{}
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "get", "FOO"} {
		r := newReq("192.0.2.1:1")
		r.Method = m
		k, err := Method(r)
		require.NoError(t, err)
		got[m] = k
	}
	assert.Equal(t, map[string]string{
		"GET": "GET", "HEAD": "GET", "POST": "POST", "PUT": "PUT", "PATCH": "PATCH", "DELETE": "DELETE",
		"OPTIONS": "OPTIONS", "TRACE": "TRACE", "CONNECT": "CONNECT", "get": otherMethod, "FOO": otherMethod,
	}, got)
}
