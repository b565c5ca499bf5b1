package ginlimit_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackClientIPTrustingEveryPeer: ClientIP on an engine that trusts
// every peer (gin's default until SetTrustedProxies) took gin's answer,
// the left-most X-Forwarded-For entry or X-Real-IP any client writes: one
// client writing a new address each time had a fresh budget per request
// (10 requests, 10 keys), and one writing a victim's address spent the
// victim's. An engine that trusts a peer no proxy is is not believed: the
// client is RemoteAddr (10 requests, 1 key), as in PerIP. A platform's
// header (TrustedPlatform), which gin takes from every peer by design, and
// the proxies of a restricted engine are still believed.
func TestAttackClientIPTrustingEveryPeer(t *testing.T) {
	t.Parallel()
	for _, peer := range []string{"203.0.113.9:4000", "[2001:db8:5::9]:4000"} {
		key := ginlimit.ClientIP(gin.New())
		keys := map[string]bool{}
		for i := range 10 {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = peer
			client := "198.51.100." + strconv.Itoa(i)
			if i%2 == 0 {
				r.Header.Set("X-Forwarded-For", client)
			} else {
				r.Header.Set("X-Real-IP", client)
			}
			k, err := key(r)
			require.NoError(t, err)
			keys[k] = true
		}
		assert.Len(t, keys, 1, peer)
		assert.NotContains(t, keys, "198.51.100.0/32", peer)
	}

	e := gin.New()
	e.TrustedPlatform = gin.PlatformCloudflare
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "203.0.113.9:4000"
	r.Header.Set("CF-Connecting-IP", "198.51.100.7")
	k, err := ginlimit.ClientIP(e)(r)
	require.NoError(t, err)
	assert.Equal(t, "198.51.100.7/32", k, "the platform's header")
}

// TestAttackClientIPProbeOfAnotherFamily: the probe asked gin about a peer
// of the family RemoteAddr is written in, not the one gin checks it as. An
// IPv4-mapped peer ([::ffff:203.0.113.9]) is an IPv4 peer to gin, trusted
// by SetTrustedProxies("0.0.0.0/0"), but the probe asked about 100::1,
// untrusted: the left-most X-Forwarded-For entry, written by the client,
// was the key (10 requests, 10 keys). And a peer on a Unix socket, which
// gin trusts whatever the proxies, was never probed: on an engine trusting
// every address the entry a client writes was its key too. Both are
// keyed as PerIP keys them (1 key; none for a Unix socket's peer).
func TestAttackClientIPProbeOfAnotherFamily(t *testing.T) {
	t.Parallel()
	v4 := gin.New()
	require.NoError(t, v4.SetTrustedProxies([]string{"0.0.0.0/0"}))
	v6 := gin.New()
	require.NoError(t, v6.SetTrustedProxies([]string{"::/0"}))
	unix := context.WithValue(context.Background(), http.LocalAddrContextKey, &net.UnixAddr{Name: "/run/app.sock", Net: "unix"})
	for _, c := range []struct {
		name   string
		engine *gin.Engine
		ctx    context.Context
		remote string
		want   string // "" for ErrNoKey
	}{
		{"mapped peer", v4, context.Background(), "[::ffff:203.0.113.9]:4000", "203.0.113.9/32"},
		{"unix, every peer trusted", gin.New(), unix, "@", ""},
		{"unix, every IPv4 trusted", v4, unix, "@", ""},
		{"unix, every IPv6 trusted", v6, unix, "@", ""},
	} {
		key := ginlimit.ClientIP(c.engine)
		keys := map[string]bool{}
		for i := range 10 {
			r := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(c.ctx)
			r.RemoteAddr = c.remote
			if i%2 == 0 {
				r.Header.Set("X-Forwarded-For", "198.51.100."+strconv.Itoa(i)+", 192.0.2.1")
			} else {
				r.Header.Set("X-Forwarded-For", "2001:db8:"+strconv.Itoa(i)+"::1, 2001:db8:ffff::1")
			}
			k, err := key(r)
			if c.want == "" {
				require.ErrorIs(t, err, keyfunc.ErrNoKey, c.name)
				continue
			}
			require.NoError(t, err, c.name)
			keys[k] = true
		}
		if c.want != "" {
			assert.Equal(t, map[string]bool{c.want: true}, keys, c.name)
		}
	}

	// The probes, shared, are only read: requests decided at once (under
	// -race) are each keyed by their peer.
	shared := ginlimit.ClientIP(v4)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				r := httptest.NewRequest(http.MethodGet, "/", nil)
				r.RemoteAddr = "[::ffff:203.0.113." + strconv.Itoa(i) + "]:1"
				r.Header.Set("X-Forwarded-For", "198.51.100.1")
				k, err := shared(r)
				assert.NoError(t, err)
				assert.Equal(t, "203.0.113."+strconv.Itoa(i)+"/32", k)
			}
		}()
	}
	wg.Wait()

	// A Unix socket's proxy on an engine that trusts only itself names
	// the client as before.
	e := gin.New()
	require.NoError(t, e.SetTrustedProxies([]string{"10.0.0.0/8"}))
	r := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(unix)
	r.RemoteAddr = "@"
	r.Header.Set("X-Forwarded-For", "198.51.100.7, 10.0.0.2")
	k, err := ginlimit.ClientIP(e)(r)
	require.NoError(t, err)
	assert.Equal(t, "198.51.100.7/32", k)
}

// TestClientIPProbeAllocatesNothing: the probe built a request, its header
// map and a value per RemoteIPHeaders name at every request gin answers
// from a header, every request through a proxy: 12 allocations where a
// direct one takes 6. The probes are made once per header names and
// shared, made anew when the engine's RemoteIPHeaders change: a proxied
// request allocates no more than a direct one. Not
// parallel: AllocsPerRun counts the whole process's allocations.
func TestClientIPProbeAllocatesNothing(t *testing.T) {
	e := gin.New()
	require.NoError(t, e.SetTrustedProxies([]string{"10.0.0.0/8"}))
	key := ginlimit.ClientIP(e)
	allocs := func(xff, want string) float64 {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "10.0.0.1:1"
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		k, err := key(r)
		require.NoError(t, err)
		require.Equal(t, want, k)
		return testing.AllocsPerRun(20, func() { _, _ = key(r) })
	}
	assert.LessOrEqual(t, allocs("198.51.100.7", "198.51.100.7/32"), allocs("", "10.0.0.1/32"))

	// The probes follow RemoteIPHeaders changed after a first request.
	all := gin.New()
	key = ginlimit.ClientIP(all)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "203.0.113.9:4000"
	r.Header.Set("X-Forwarded-For", "198.51.100.7")
	r.Header.Set("X-Client", "198.51.100.8")
	k, err := key(r)
	require.NoError(t, err)
	assert.Equal(t, "203.0.113.9/32", k)
	all.RemoteIPHeaders = []string{"X-Client"}
	k, err = key(r)
	require.NoError(t, err)
	assert.Equal(t, "203.0.113.9/32", k, "a header named after the first request")
}
