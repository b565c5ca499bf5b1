package faultproxy

import (
	"context"
	"net"
	"sync/atomic"
)

// Switch dials the address last Set: a client's Dialer for a server that
// moves (a failover), so that a test sends the client's new connections
// elsewhere while its open ones stay where they are.
type Switch struct {
	addr atomic.Pointer[string]
}

// NewSwitch returns a Switch dialing addr.
func NewSwitch(addr string) *Switch {
	s := &Switch{}
	s.Set(addr)
	return s
}

// Set makes the next dials go to addr.
func (s *Switch) Set(addr string) { s.addr.Store(&addr) }

// Dial dials the address last set, whatever addr the client asks for: a
// go-redis Options.Dialer.
func (s *Switch) Dial(ctx context.Context, network, _ string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, *s.addr.Load())
}
