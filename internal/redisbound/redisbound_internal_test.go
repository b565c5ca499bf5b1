package redisbound

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sameOptions reports the exported fields of a and b (options structs of
// one type) that differ, but those in skip; funcs are compared by code.
func sameOptions(t *testing.T, a, b any, skip ...string) {
	t.Helper()
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		f := va.Type().Field(i)
		if !f.IsExported() || contains(skip, f.Name) {
			continue
		}
		x, y := va.Field(i), vb.Field(i)
		if f.Type.Kind() == reflect.Func {
			assert.Equal(t, x.Pointer(), y.Pointer(), "field %s", f.Name)
			continue
		}
		assert.Equal(t, x.Interface(), y.Interface(), "field %s", f.Name)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestCloneKeepsOptions: the client of floodgate's own made from a Cluster
// or Ring client has its options, after go-redis's defaults, but for the
// timeouts it bounds: values go-redis maps from −1 to 0 (none) are not
// read as "the default" the second time (MaxRedirects −1 became 3
// redirections, MaxRetries −1 three retries).
func TestCloneKeepsOptions(t *testing.T) {
	const io = time.Second
	// (NewClient is wrapped, to know the nodes' clients.)
	bounded := []string{"ReadTimeout", "WriteTimeout", "DialTimeout", "PoolTimeout", "NewClient"}
	for _, o := range []redis.ClusterOptions{
		{},
		{MaxRedirects: -1, MinRetryBackoff: -1, MaxRetryBackoff: -1, MaxRetries: -1, ReadTimeout: -1, WriteTimeout: -1},
		{MaxRedirects: 7, MaxRetries: 2, MinRetryBackoff: time.Millisecond, Username: "u", Password: "p", PoolSize: 3,
			ReadOnly: true, RouteRandomly: true, ClientName: "app", DialTimeout: time.Minute, PoolTimeout: time.Minute},
		{ReadTimeout: -2, WriteTimeout: -2, ContextTimeoutEnabled: true, Protocol: 2},
	} {
		o.Addrs = []string{"127.0.0.1:1"}
		c := redis.NewClusterClient(&o)
		n := cloneCluster(c, io, func(f newClient) newClient { return f })
		sameOptions(t, c.Options(), n.Options(), bounded...)
		assert.Equal(t, io, n.Options().ReadTimeout)
		assert.Equal(t, io, n.Options().WriteTimeout)
		assert.LessOrEqual(t, n.Options().DialTimeout, io)
		assert.LessOrEqual(t, n.Options().PoolTimeout, io)
		_ = c.Close()
		_ = n.Close()
	}
	for _, o := range []redis.RingOptions{
		{},
		{MaxRetries: -1, MinRetryBackoff: -1, MaxRetryBackoff: -1, ReadTimeout: -1},
		{MaxRetries: 5, Username: "u", Password: "p", DB: 3, PoolSize: 2, DialTimeout: time.Minute, HeartbeatFrequency: time.Second},
	} {
		o.Addrs = map[string]string{"a": "127.0.0.1:1"}
		c := redis.NewRing(&o)
		n := cloneRing(c, io, func(f newClient) newClient { return f })
		sameOptions(t, c.Options(), n.Options(), bounded...)
		assert.Equal(t, io, n.Options().ReadTimeout)
		assert.Equal(t, io, n.Options().WriteTimeout)
		assert.Equal(t, io, n.Options().DialTimeout)
		_ = c.Close()
		_ = n.Close()
	}
}

// TestClientKinds: which client a component sends with, for each kind
// and timeouts, and that one of floodgate's own is shared by the
// components made on one client and closed with the last of them, never
// the application's.
func TestClientKinds(t *testing.T) {
	const io = time.Second
	addr := []string{"127.0.0.1:1"}
	ring := map[string]string{"a": "127.0.0.1:1"}
	for _, tc := range []struct {
		name string
		c    redis.UniversalClient
		same bool // used as it is
	}{
		{"client, within", redis.NewClient(&redis.Options{Addr: addr[0], ReadTimeout: io / 2}), true},
		{"client, context deadlines", redis.NewClient(&redis.Options{Addr: addr[0], ContextTimeoutEnabled: true}), true},
		{"client, defaults", redis.NewClient(&redis.Options{Addr: addr[0]}), false},
		// A ClusterClient never: Flush reaches only its own one's nodes
		// without reloading the Cluster's state over the connections.
		{"cluster, within", redis.NewClusterClient(&redis.ClusterOptions{Addrs: addr, ReadTimeout: io / 2, WriteTimeout: io}), false},
		{"cluster, context deadlines", redis.NewClusterClient(&redis.ClusterOptions{Addrs: addr, ReadTimeout: -1, ContextTimeoutEnabled: true}), false},
		{"cluster, defaults", redis.NewClusterClient(&redis.ClusterOptions{Addrs: addr}), false},
		{"cluster, no deadlines", redis.NewClusterClient(&redis.ClusterOptions{Addrs: addr, ReadTimeout: -2, ContextTimeoutEnabled: true}), false},
		{"cluster, writes never time out", redis.NewClusterClient(&redis.ClusterOptions{Addrs: addr, ReadTimeout: io, WriteTimeout: -1}), false},
		{"ring, within", redis.NewRing(&redis.RingOptions{Addrs: ring, ReadTimeout: io / 2}), true},
		{"ring, defaults", redis.NewRing(&redis.RingOptions{Addrs: ring}), false},
		{"ring, reads never time out", redis.NewRing(&redis.RingOptions{Addrs: ring, ReadTimeout: -1}), false},
		{"universal, cluster form", redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{"127.0.0.1:1", "127.0.0.1:2"}}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.c.Close()
			ba := New(tc.c, io)
			a := ba.Client
			if tc.same {
				assert.Same(t, tc.c, a)
				ba.Release()
				return
			}
			assert.NotSame(t, tc.c, a)
			// Nothing listens at these addresses: a Ping of a client not
			// closed fails by its context (bounded: go-redis retries a
			// refused dial with backoff for about 2 s), a closed one at once.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancel()
			if _, ok := tc.c.(*redis.Client); ok {
				assert.Equal(t, io, a.(*redis.Client).Options().ReadTimeout)
				ba.Release()
				assert.NotErrorIs(t, a.Ping(ctx).Err(), redis.ErrClosed, "a clone sharing the pool is never closed")
				return
			}
			if cc, ok := tc.c.(*redis.ClusterClient); ok {
				o := a.(*redis.ClusterClient).Options()
				want := io // or the client's, when shorter
				if r := cc.Options().ReadTimeout; r > 0 && r < io {
					want = r
				}
				assert.Equal(t, want, o.ReadTimeout)
				assert.Equal(t, cc.Options().ContextTimeoutEnabled, o.ContextTimeoutEnabled)
			}
			bb := New(tc.c, io)
			b := bb.Client
			assert.Same(t, a, b, "one client of floodgate's own per client and bound")
			bc := New(tc.c, 2*io)
			assert.NotSame(t, a, bc.Client)
			bc.Release()
			ba.Release()
			ba.Release() // a second release changes nothing
			assert.NotErrorIs(t, b.Ping(ctx).Err(), redis.ErrClosed, "still used by b")
			bb.Release()
			require.ErrorIs(t, b.Ping(context.Background()).Err(), redis.ErrClosed, "closed with the last")
			assert.NotErrorIs(t, tc.c.Ping(ctx).Err(), redis.ErrClosed, "the application's client is never closed")
			bd := New(tc.c, io)
			assert.NotSame(t, a, bd.Client, "a new one after the last release")
			bd.Release()
		})
	}
}
