package keyfunc

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// A proxy that appends its element to the Forwarded line the client sent
// (nginx's proxy_set_header Forwarded "$http_forwarded, for=…") leaves the
// client in charge of everything left of that element. Whatever it put
// there — an unterminated quote, garbage, a half pair — the client is keyed
// by the element the proxy appended, never by the proxy's own address: a
// key every such client would share, and a fresh bucket beside its own.
func TestAttackForwardedPrefixOnTheProxysLine(t *testing.T) {
	trusted := mustClientIP(t, IPOptions{TrustedProxies: prefixes("10.0.0.0/8"), Source: SourceForwarded})
	hops := mustClientIP(t, IPOptions{TrustedHops: 1, Source: SourceForwarded})
	hops2 := mustClientIP(t, IPOptions{TrustedHops: 2, Source: SourceForwarded})
	sent := []string{
		`for="198.51.100.1`, `garbage`, `for=1.2.3.4 x`, `for="1.2.3.4\`, `;;;=`, `"`, `\"`, `for="a\"`,
		`for="a\\"x`, `for=[`, `=`, `for="`, "for=\x00", `for=","`, `for=",`, `""""`, `a=b;`, `,"`,
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		sent = append(sent, spoofValue(rng), randString(rng, "\"\\,;= for.0123456789:[]_x", 24))
	}
	for _, s := range sent {
		r := newReq("10.0.0.1:443", "Forwarded", s+`, for="198.51.100.23:5000";proto=https`)
		got, err := trusted(r)
		require.NoError(t, err)
		require.Equal(t, "198.51.100.23/32", got, "%q", s)
		got, err = hops(r)
		require.NoError(t, err)
		require.Equal(t, "198.51.100.23/32", got, "%q", s)
		// Two proxies, each appending to the line.
		r = newReq("192.0.2.11:443", "Forwarded", s+", for=198.51.100.23, for=192.0.2.10")
		got, err = hops2(r)
		require.NoError(t, err)
		require.Equal(t, "198.51.100.23/32", got, "%q", s)
	}
}

// A proxy that adds its single-address header as a line of its own
// (HAProxy's add-header) after the one a client sent: the proxy's line
// decides, so the client can neither spoof its key nor, by sending a line
// of its own, move to the proxy's address.
func TestAttackNamedHeaderLineBeforeTheProxys(t *testing.T) {
	f := mustClientIP(t, IPOptions{TrustedProxies: prefixes("10.0.0.0/8"), Headers: []string{"X-Real-IP"}})
	rng := rand.New(rand.NewPCG(13, 14))
	for range 2000 {
		r := newReq("10.0.0.1:443")
		for range 1 + rng.IntN(3) {
			r.Header.Add("X-Real-IP", spoofValue(rng))
		}
		r.Header.Add("X-Real-IP", "198.51.100.23")
		got, err := f(r)
		require.NoError(t, err)
		require.Equal(t, "198.51.100.23/32", got, "%q", r.Header["X-Real-Ip"])
	}
}
