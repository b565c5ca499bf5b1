package keyfunc

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// net/http moves the Host header of a request it reads out of
// Request.Header, into Request.Host. Header("Host"), a plausible key for
// limits per site, was accepted, and then found no Host in any request:
// every request was refused as keyless (ErrNoKey, 403 under the
// middleware), as was every request of a configuration file keyed by
// "header: Host". It panics when built now, with ErrInvalidOptions, as an
// invalid name does.
func TestHeaderHostRefusedAtSetup(t *testing.T) {
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET / HTTP/1.1\r\nHost: shop.example\r\n\r\n")))
	require.NoError(t, err)
	require.Equal(t, "shop.example", r.Host)
	require.Empty(t, r.Header.Values("Host"), "net/http leaves no Host in the header")

	for _, name := range []string{"Host", "host", "HOST"} {
		var f Func
		err := panicError(func() { f = Header(name) })
		require.ErrorIs(t, err, ErrInvalidOptions, "Header(%q) is accepted", name)
		assert.Nil(t, f)
	}
	_, err = ClientIP(IPOptions{TrustedHops: 1, Headers: []string{"host"}})
	require.ErrorIs(t, err, ErrInvalidOptions, "a Host header that is never read")
}

func panicError(f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err, _ = v.(error)
		}
	}()
	f()
	return nil
}
