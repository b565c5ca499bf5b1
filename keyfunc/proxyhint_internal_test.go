package keyfunc

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hintCounter returns an extractor of opts whose hint is counted.
func hintCounter(t *testing.T, opts IPOptions) (*ipExtractor, *atomic.Int32) {
	t.Helper()
	c, err := newIPExtractor(opts)
	require.NoError(t, err)
	var n atomic.Int32
	c.warn = func(msg string, args ...any) {
		assert.Contains(t, msg, "TrustedProxyCIDRs")
		n.Add(1)
	}
	return c, &n
}

func hintRequest(peer, header, value string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = peer
	if header != "" {
		r.Header.Set(header, value)
	}
	return r
}

// An operator who put a load balancer in front of the application and
// named no proxy keys every client by the balancer: one client's overuse
// refuses them all. The key stays the peer (the header may be a client's),
// but the operator is told why, once.
func TestHintUntrustedProxyOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		opts   IPOptions
		peer   string
		header string
		hints  int32
	}{
		{"private peer, X-Forwarded-For", IPOptions{}, "10.0.0.5:4000", "X-Forwarded-For", 1},
		{"loopback peer, Forwarded", IPOptions{}, "127.0.0.1:4000", "Forwarded", 1},
		{"unique-local IPv6 peer", IPOptions{}, "[fd00::5]:4000", "X-Forwarded-For", 1},
		{"a peer outside the trusted proxy", IPOptions{TrustedProxyCIDRs: []string{"10.0.0.5/32"}}, "10.0.0.7:4000", "X-Forwarded-For", 1},
		{"IPv4 keyed by /24", IPOptions{IPv4Prefix: 24}, "192.168.1.9:4000", "X-Forwarded-For", 1},
		{"shared address space", IPOptions{}, "100.64.1.2:4000", "X-Forwarded-For", 1},
		{"a connection not looked at (port 4001)", IPOptions{}, "10.0.0.5:4001", "X-Forwarded-For", 0},
		{"public peer", IPOptions{}, "203.0.113.7:4000", "X-Forwarded-For", 0},
		{"no forwarding header", IPOptions{}, "10.0.0.5:4000", "", 0},
		{"X-Real-IP", IPOptions{}, "10.0.0.5:4000", "X-Real-IP", 1},
		{"the trusted proxy", IPOptions{TrustedProxyCIDRs: []string{"10.0.0.5/32"}}, "10.0.0.5:4000", "X-Forwarded-For", 0},
		{"hops: every peer is a proxy", IPOptions{TrustedHops: 1}, "10.0.0.5:4000", "X-Forwarded-For", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, n := hintCounter(t, tc.opts)
			for range 3 {
				r := hintRequest(tc.peer, tc.header, "198.51.100.9")
				_, err := c.key(r)
				require.NoError(t, err)
			}
			assert.Equal(t, tc.hints, n.Load())
		})
	}
}

// The hint changes no key: the header a client may have written is still
// not read.
func TestHintLeavesTheKey(t *testing.T) {
	t.Parallel()
	c, n := hintCounter(t, IPOptions{})
	key, err := c.key(hintRequest("10.0.0.5:4000", "X-Forwarded-For", "198.51.100.9"))
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.5/32", key)
	assert.Equal(t, int32(1), n.Load())
}

// Concurrent requests log it once.
func TestHintOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	c, n := hintCounter(t, IPOptions{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 4 {
				_, err := c.key(hintRequest("10.0.0.5:4000", "X-Forwarded-For", "198.51.100.9"))
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), n.Load())
}
