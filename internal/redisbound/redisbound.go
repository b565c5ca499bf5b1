// Package redisbound gives the Redis stores (core/redisstore,
// core/inflight/redisinflight) a client whose round trips end within a
// bound of theirs, whatever the application's client options.
package redisbound

import (
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/redis/go-redis/v9"
)

// Client returns the client to send a store's round trips with: one
// whose every read and write ends within io (the store's own bound on a
// round trip), so that a black-holed connection (a failover, or a link cut
// without a reset, leaving the connections open to a Redis gone) is given
// up, and closed by the client, after io rather than the client's own
// ReadTimeout (5 s by default), or never when it has none: a store whose
// round trips all wait on such connections has nothing left to send its
// breaker's trial with, and stays on its failure mode.
//
// A client that bounds its round trips by the context's deadline
// (ContextTimeoutEnabled, timeouts not below −1) is used as it is: the
// store's deadlines bound them. A redis.Client otherwise gets a clone
// sharing its pool, with read and write timeouts of io (Client.WithTimeout);
// the application's own commands keep their timeouts. A ClusterClient or a
// Ring has no such clone: one whose reads or writes never time out is
// refused with an error wrapping core.ErrInvalidConfig (its round trips
// would hang for good), one with timeouts longer than io recovers from
// black-holed connections within them. what names the store in the error.
func Client(what string, client redis.UniversalClient, io time.Duration) (redis.UniversalClient, error) {
	var read, write time.Duration
	var ctxDeadline bool
	switch c := client.(type) {
	case *redis.Client:
		o := c.Options()
		read, write, ctxDeadline = o.ReadTimeout, o.WriteTimeout, o.ContextTimeoutEnabled
	case *redis.ClusterClient:
		o := c.Options()
		read, write, ctxDeadline = o.ReadTimeout, o.WriteTimeout, o.ContextTimeoutEnabled
	case *redis.Ring:
		o := c.Options()
		read, write, ctxDeadline = o.ReadTimeout, o.WriteTimeout, o.ContextTimeoutEnabled
	default:
		return client, nil
	}
	// (As the client holds them: 0 is no timeout, which the context's
	// deadline bounds when the client sets deadlines from it; below 0 no
	// deadline at all.)
	within := func(d time.Duration) bool {
		return (d > 0 && d <= io) || (ctxDeadline && d >= 0)
	}
	if within(read) && within(write) {
		return client, nil
	}
	if c, ok := client.(*redis.Client); ok {
		return c.WithTimeout(io), nil
	}
	never := func(d time.Duration) bool { return d < 0 || (d == 0 && !ctxDeadline) }
	if never(read) || never(write) {
		return nil, fmt.Errorf("%s: the %T's reads or writes never time out (ReadTimeout %v, WriteTimeout %v, "+
			"ContextTimeoutEnabled %v): a black-holed connection would hold a round trip for good; set timeouts, "+
			"or ContextTimeoutEnabled: %w", what, client, read, write, ctxDeadline, core.ErrInvalidConfig)
	}
	return client, nil
}
