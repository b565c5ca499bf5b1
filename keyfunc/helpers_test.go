package keyfunc

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// newReq returns a GET request from remote with the headers given as name,
// value pairs; a name given twice is sent on two lines.
func newReq(remote string, hdr ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = remote
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Add(hdr[i], hdr[i+1])
	}
	return r
}

func mustClientIP(t testing.TB, opts IPOptions) Func {
	t.Helper()
	f, err := ClientIP(opts)
	require.NoError(t, err)
	return f
}

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// randAddr returns a random IPv4 or IPv6 address.
func randAddr(rng *rand.Rand) netip.Addr {
	if rng.IntN(2) == 0 {
		var b [4]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return netip.AddrFrom4(b)
	}
	var b [16]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return netip.AddrFrom16(b)
}

// randString returns a short random string drawn from bytes that matter to
// the header parsers, including separators, quotes and address characters.
func randString(rng *rand.Rand, alphabet string, maxLen int) string {
	b := make([]byte, rng.IntN(maxLen+1))
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}
