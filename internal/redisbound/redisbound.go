// Package redisbound gives floodgate's Redis components (core/redisstore,
// core/inflight/redisinflight, core/localfirst) a client whose round trips
// end within a bound of theirs, whatever the application's client options.
package redisbound

import (
	"context"
	"sync"
	"sync/atomic"
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

// Bound is the client a component sends its round trips with (see New),
// and what it owes: Release when done, FlushSoon when a round trip timed
// out.
type Bound struct {
	// Client is the client to send with.
	Client   redis.UniversalClient
	io       time.Duration
	own      *owned // nil: not floodgate's own
	key      ownedKey
	once     sync.Once
	flushing atomic.Bool
}

// New returns the client to send a component's round trips with: one
// whose every read and write ends within io, so that a black-holed
// connection (a failover, or a link cut without a reset, leaving the
// connections open to a Redis gone) is given up after io rather than the
// client's own ReadTimeout (5 s by default), or never when it has none:
// a component whose round trips all wait on such connections has nothing
// left to send its breaker's trial with, and stays on its failure mode.
// Release it once the component is done with it (its Close).
//
//   - A redis.Client or Ring whose timeouts are within io, or that bounds
//     its round trips by the context's deadline (ContextTimeoutEnabled,
//     timeouts not below −1, so that the component's deadlines bound
//     them), is used as it is.
//   - A redis.Client (a Sentinel failover client too) otherwise gets a
//     clone sharing its pool (and its hooks), with read and write timeouts
//     of io (Client.WithTimeout): the application's own commands keep
//     their timeouts; Release does nothing.
//   - A ClusterClient, whatever its timeouts, and a Ring otherwise have no
//     such clone: the component gets a client of its own, made from the
//     client's options with read and write timeouts of io (or the
//     client's, when shorter) and dial and pool-wait timeouts of at most
//     io. A ClusterClient's own nodes are the only ones Flush can reach
//     without first reloading the Cluster's state over the connections to
//     flush, which cost the reload's whole bound and left them unflushed:
//     a Cluster client bounded by the context came back to Redis in two
//     bounds, not one, in 4 runs of 10, and in three under load.
//     Everything else is carried over (addresses, credentials and
//     credential providers, TLS, Dialer, OnConnect, NewClient, pool sizes,
//     routing, a Sentinel-fed ClusterSlots), except the hooks added to the
//     application's client (AddHook: tracing, metrics), which do not see
//     the component's commands. It opens connections of its own (a pool
//     per node, of the client's PoolSize), one client for all the
//     components made on one client with one bound, closed when the last
//     of them is released; the application's client is never closed.
//   - Any other implementation of redis.UniversalClient is used as it is:
//     its round trips must end by the context's deadline.
func New(client redis.UniversalClient, io time.Duration) *Bound {
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
		return &Bound{Client: client, io: io}
	}
	// (As the client holds them: 0 is no timeout, which the context's
	// deadline bounds when the client sets deadlines from it; below 0 no
	// deadline at all.)
	within := func(d time.Duration) bool {
		return (d > 0 && d <= io) || (ctxDeadline && d >= 0)
	}
	if _, cluster := client.(*redis.ClusterClient); !cluster && within(read) && within(write) {
		return &Bound{Client: client, io: io}
	}
	if c, ok := client.(*redis.Client); ok {
		return &Bound{Client: c.WithTimeout(io), io: io}
	}
	return own(client, io)
}

// Release tells that the component is done with b.Client: a client of
// floodgate's own is closed once no other component holds it. A second
// Release does nothing.
func (b *Bound) Release() {
	if b.own == nil {
		return
	}
	b.once.Do(func() {
		ownedMu.Lock()
		b.own.refs--
		last := b.own.refs == 0
		if last {
			delete(clients, b.key)
		}
		ownedMu.Unlock()
		if last {
			_ = b.own.c.Close()
		}
	})
}

// FlushSoon runs Flush in the background, within the bound, unless a
// flush runs already: call it when a round trip ended by a timeout (its
// connection stopped answering: a failover may have black-holed every
// connection open then).
func (b *Bound) FlushSoon() {
	if !b.flushing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer b.flushing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), b.io)
		defer cancel()
		b.Flush(ctx)
	}()
}

// Flush sends at once a PING on every idle connection of b.Client's pools
// (for a Cluster or a Ring, of each node's), and returns when they have
// all ended, within the client's bound or ctx. Connections a failover
// black-holed are then given up together (a client closes a connection
// whose read timed out), instead of one by one by the breaker's trials,
// each waiting the bound on the next such connection the pool hands it (a
// store whose pool held 8 idle connections came back to Redis 4 s after
// it answered again, not 1 s).
func (b *Bound) Flush(ctx context.Context) {
	var wg sync.WaitGroup
	flush := func(c *redis.Client) {
		st := c.PoolStats()
		for range st.IdleConns {
			wg.Go(func() { _ = c.Ping(ctx).Err() })
		}
		if st.PipelineStats == nil {
			return
		}
		for range st.PipelineStats.IdleConns {
			wg.Go(func() {
				_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error { return p.Ping(ctx).Err() })
			})
		}
	}
	each := func(_ context.Context, c *redis.Client) error { flush(c); return nil }
	switch c := b.Client.(type) {
	case *redis.Client:
		flush(c)
	case *redis.ClusterClient:
		if b.own != nil {
			// Its nodes as made (ForEachShard would first reload the
			// Cluster's state over the connections to flush).
			for _, n := range b.own.nodeList() {
				flush(n)
			}
		} else {
			_ = c.ForEachShard(ctx, each)
		}
	case *redis.Ring:
		if b.own != nil {
			for _, n := range b.own.nodeList() {
				flush(n)
			}
		} else {
			_ = c.ForEachShard(ctx, each) // (the shards up)
		}
	}
	wg.Wait()
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

// owned is a client of floodgate's own made from an application's, how
// many components hold it, and its nodes' clients by address (see
// track).
type owned struct {
	c    redis.UniversalClient
	refs int

	mu    sync.Mutex
	nodes map[string]*redis.Client
}

type ownedKey struct {
	of redis.UniversalClient
	io time.Duration
}

var (
	ownedMu sync.Mutex
	clients = map[ownedKey]*owned{}
)

// own returns the Bound of the client of floodgate's own made from of (a
// ClusterClient or Ring) with timeouts of io: made now, or shared with
// the components holding it already.
func own(of redis.UniversalClient, io time.Duration) *Bound {
	k := ownedKey{of, io}
	ownedMu.Lock()
	defer ownedMu.Unlock()
	o := clients[k]
	if o == nil {
		o = &owned{nodes: map[string]*redis.Client{}}
		if c, ok := of.(*redis.ClusterClient); ok {
			o.c = cloneCluster(c, io, o.track)
		} else {
			o.c = cloneRing(of.(*redis.Ring), io, o.track)
		}
		clients[k] = o
	}
	o.refs++
	return &Bound{Client: o.c, io: io, own: o, key: k}
}

// track wraps a NewClient option: the node clients it makes are recorded
// (the latest one of each address), for Flush.
func (o *owned) track(mk newClient) newClient {
	return func(opt *redis.Options) *redis.Client {
		c := mk(opt)
		o.mu.Lock()
		o.nodes[opt.Addr] = c
		o.mu.Unlock()
		return c
	}
}

// newClient is the type of the NewClient options.
type newClient = func(*redis.Options) *redis.Client

// nodeList returns the node clients recorded.
func (o *owned) nodeList() []*redis.Client {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]*redis.Client, 0, len(o.nodes))
	for _, c := range o.nodes {
		out = append(out, c)
	}
	return out
}

// The options a client reports are those after go-redis filled in its
// defaults, which maps some values given (−1: none) to others (0) that a
// new client would read as "the default": the clones give those back as
// they were written (TestCloneKeepsOptions).

// cloneCluster makes a ClusterClient of c's options bounded by io, its
// NewClient wrapped by track.
func cloneCluster(c *redis.ClusterClient, io time.Duration, track func(newClient) newClient) *redis.ClusterClient {
	o := *c.Options()
	o.NewClient = track(o.NewClient)
	if o.MaxRedirects == 0 {
		o.MaxRedirects = -1
	}
	bound(io, &o.ReadTimeout, &o.WriteTimeout, &o.DialTimeout, &o.PoolTimeout, &o.MinRetryBackoff, &o.MaxRetryBackoff)
	return redis.NewClusterClient(&o)
}

// cloneRing makes a Ring of c's options bounded by io, its NewClient
// wrapped by track.
func cloneRing(c *redis.Ring, io time.Duration, track func(newClient) newClient) *redis.Ring {
	o := *c.Options()
	o.NewClient = track(o.NewClient)
	if o.MaxRetries == 0 {
		o.MaxRetries = -1
	}
	bound(io, &o.ReadTimeout, &o.WriteTimeout, &o.DialTimeout, &o.PoolTimeout, &o.MinRetryBackoff, &o.MaxRetryBackoff)
	return redis.NewRing(&o)
}

// bound sets a clone's read and write timeouts (unset, none or longer) to
// io, its dial timeout (unset or longer) and pool wait (longer) to io, and
// undoes go-redis's defaults on its retry back-offs (see undoInit).
func bound(io time.Duration, read, write, dial, pool *time.Duration, backoffs ...*time.Duration) {
	for _, d := range []*time.Duration{read, write} {
		if *d <= 0 || *d > io {
			*d = io
		}
	}
	if *dial <= 0 || *dial > io {
		*dial = io
	}
	*pool = min(*pool, io)
	undoInit(backoffs...)
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
