// Package redisbound gives floodgate's Redis components (core/redisstore,
// core/inflight/redisinflight, core/localfirst) a client whose round trips
// end within a bound of theirs, whatever the application's client options.
package redisbound

import (
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// RoundTrip is the bound on a round trip of a component whose calls have
// a deadline of timeout: max(1 s, 4 × timeout). A round trip that misses
// its call's deadline goes on until then, so that a slow link keeps its
// connections warm, and no longer, so that a black-holed connection is
// given up (and closed by the client) about a second after it stopped
// answering.
func RoundTrip(timeout time.Duration) time.Duration { return max(time.Second, 4*timeout) }

// Client returns the client to send a component's round trips with: one
// whose every read and write ends within io, so that a black-holed
// connection (a failover, or a link cut without a reset, leaving the
// connections open to a Redis gone) is given up after io rather than the
// client's own ReadTimeout (5 s by default), or never when it has none:
// a component whose round trips all wait on such connections has nothing
// left to send its breaker's trial with, and stays on its failure mode.
// release is to be called once the component is done with it (its Close).
//
//   - A client whose timeouts are within io, or that bounds its round trips
//     by the context's deadline (ContextTimeoutEnabled, timeouts not below
//     −1, so that the component's deadlines bound them), is used as it is.
//   - A redis.Client (a Sentinel failover client too) otherwise gets a
//     clone sharing its pool (and its hooks), with read and write timeouts
//     of io (Client.WithTimeout): the application's own commands keep
//     their timeouts; release does nothing.
//   - A ClusterClient or Ring otherwise has no such clone: the component
//     gets a client of its own, made from the client's options with read
//     and write timeouts of io and dial and pool-wait timeouts of at most
//     io. Everything else is carried over (addresses, credentials and
//     credential providers, TLS, Dialer, OnConnect, pool sizes, routing,
//     a Sentinel-fed ClusterSlots), except the hooks added to the
//     application's client (AddHook: tracing, metrics), which do not see
//     the component's commands. It opens connections of its own (a pool
//     per node, of the client's PoolSize), one client for all the
//     components made on one client with one bound, closed when the last
//     of them is released; the application's client is never closed.
//   - Any other implementation of redis.UniversalClient is used as it is:
//     its round trips must end by the context's deadline.
func Client(client redis.UniversalClient, io time.Duration) (c redis.UniversalClient, release func()) {
	noop := func() {}
	var read, write time.Duration
	var ctxDeadline bool
	switch c := client.(type) {
	case *redis.Client:
		o := c.Options()
		read, write, ctxDeadline = o.ReadTimeout, o.WriteTimeout, o.ContextTimeoutEnabled
	case *redis.ClusterClient:
		o := c.Options()
		read, write, ctxDeadline = o.ReadTimeout, o.WriteTimeout, o.ContextTimeoutEnabled
		if read == -2 {
			read = -1 // (as its nodes hold it: no deadline at all)
		}
		if write == -2 {
			write = -1
		}
	case *redis.Ring:
		// (A Ring keeps the values given, which its shards' clients
		// read as a redis.Client does its own.)
		o := c.Options()
		read, write, ctxDeadline = nodeTimeout(o.ReadTimeout, 5*time.Second), o.WriteTimeout, o.ContextTimeoutEnabled
		write = nodeTimeout(write, read)
	default:
		return client, noop
	}
	// (As the client holds them: 0 is no timeout, which the context's
	// deadline bounds when the client sets deadlines from it; below 0 no
	// deadline at all.)
	within := func(d time.Duration) bool {
		return (d > 0 && d <= io) || (ctxDeadline && d >= 0)
	}
	if within(read) && within(write) {
		return client, noop
	}
	switch c := client.(type) {
	case *redis.Client:
		return c.WithTimeout(io), noop
	case *redis.ClusterClient:
		return own(client, io, func() redis.UniversalClient { return cloneCluster(c, io) })
	}
	return own(client, io, func() redis.UniversalClient { return cloneRing(client.(*redis.Ring), io) })
}

// nodeTimeout is a read or write timeout d as a redis.Client holds it
// after go-redis's defaults (Options.init): −2 none at all, −1 no timeout,
// 0 the default def.
func nodeTimeout(d, def time.Duration) time.Duration {
	switch d {
	case -2:
		return -1
	case -1:
		return 0
	case 0:
		return def
	}
	return d
}

// owned is a client of floodgate's own made from an application's, and
// how many components use it.
type owned struct {
	c    redis.UniversalClient
	refs int
}

type ownedKey struct {
	of redis.UniversalClient
	io time.Duration
}

var (
	ownedMu sync.Mutex
	clients = map[ownedKey]*owned{}
)

// own returns the client of floodgate's own made from of with timeouts of
// io, made now (by mk) or shared with the components holding it
// already, and its release.
func own(of redis.UniversalClient, io time.Duration, mk func() redis.UniversalClient) (redis.UniversalClient, func()) {
	k := ownedKey{of, io}
	ownedMu.Lock()
	defer ownedMu.Unlock()
	o := clients[k]
	if o == nil {
		o = &owned{c: mk()}
		clients[k] = o
	}
	o.refs++
	var once sync.Once
	return o.c, func() {
		once.Do(func() {
			ownedMu.Lock()
			o.refs--
			last := o.refs == 0
			if last {
				delete(clients, k)
			}
			ownedMu.Unlock()
			if last {
				_ = o.c.Close()
			}
		})
	}
}

// The options a client reports are those after go-redis filled in its
// defaults, which maps some values given (−1: none) to others (0) that a
// new client would read as "the default": the clones give those back as
// they were written (TestCloneKeepsOptions).

// cloneCluster makes a ClusterClient of c's options bounded by io.
func cloneCluster(c *redis.ClusterClient, io time.Duration) *redis.ClusterClient {
	o := *c.Options()
	if o.MaxRedirects == 0 {
		o.MaxRedirects = -1
	}
	undoInit(&o.MinRetryBackoff, &o.MaxRetryBackoff)
	o.ReadTimeout, o.WriteTimeout = io, io
	if o.DialTimeout <= 0 || o.DialTimeout > io {
		o.DialTimeout = io
	}
	if o.PoolTimeout > io {
		o.PoolTimeout = io
	}
	return redis.NewClusterClient(&o)
}

// cloneRing makes a Ring of c's options bounded by io.
func cloneRing(c *redis.Ring, io time.Duration) *redis.Ring {
	o := *c.Options()
	if o.MaxRetries == 0 {
		o.MaxRetries = -1
	}
	undoInit(&o.MinRetryBackoff, &o.MaxRetryBackoff)
	o.ReadTimeout, o.WriteTimeout = io, io
	if o.DialTimeout <= 0 || o.DialTimeout > io {
		o.DialTimeout = io
	}
	if o.PoolTimeout > io {
		o.PoolTimeout = io
	}
	return redis.NewRing(&o)
}

// undoInit gives back −1 (none) for each duration go-redis's defaults
// turned from −1 into 0.
func undoInit(ds ...*time.Duration) {
	for _, d := range ds {
		if *d == 0 {
			*d = -1
		}
	}
}
