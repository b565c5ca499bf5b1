package faultproxy

import (
	"context"
	"fmt"
	"net"
	"testing"
)

// Failover stands between a client and several servers (the nodes of a
// Cluster, the shards of a Ring), as a client's Dialer routing each
// address the client dials to that server's proxies: first its "old"
// proxy, then, after [Failover.Recover], a healthy one. [Failover.Blackhole]
// stalls every old proxy for good, so that the connections open through
// them are black-holed (open, never answered, never reset) while, once
// recovered, new connections reach the same servers: a failover seen from
// the client.
type Failover struct {
	old, healthy map[string]*Proxy
	sw           map[string]*Switch
}

// StartFailover returns a Failover in front of addrs (loopback host:port),
// its proxies closed at t's cleanup.
func StartFailover(t testing.TB, addrs ...string) *Failover {
	t.Helper()
	f := &Failover{old: map[string]*Proxy{}, healthy: map[string]*Proxy{}, sw: map[string]*Switch{}}
	for _, a := range addrs {
		f.old[a], f.healthy[a] = Start(t, a), Start(t, a)
		f.sw[a] = NewSwitch(f.old[a].Addr())
	}
	return f
}

// Dial dials addr's current proxy: a go-redis Dialer. An address it does
// not front is refused.
func (f *Failover) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	sw, ok := f.sw[addr]
	if !ok {
		return nil, fmt.Errorf("faultproxy: no proxy in front of %s", addr)
	}
	return sw.Dial(ctx, network, addr)
}

// Blackhole stalls every old proxy: the connections open through them,
// and those dialed until Recover, are held unanswered.
func (f *Failover) Blackhole() {
	for _, p := range f.old {
		p.Stall()
	}
}

// Recover sends every new connection to its server's healthy proxy; the
// old connections stay black-holed.
func (f *Failover) Recover() {
	for a, sw := range f.sw {
		sw.Set(f.healthy[a].Addr())
	}
}
