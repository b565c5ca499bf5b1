// Package faultproxy is a TCP proxy for tests that injects network faults
// between a client and a server on the loopback interface: one-way latency
// (so a round trip costs twice it), a stall (connections stay open, bytes
// are held), dropped connections, refused connections and lost replies.
// It is internal to floodgate and only ever listens on, and connects to,
// loopback addresses.
package faultproxy

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy forwards every connection accepted on Addr to its target.
type Proxy struct {
	target string
	ln     net.Listener

	latency  atomic.Int64 // one-way, ns
	refuse   atomic.Bool
	accepted atomic.Int64
	lose     atomic.Bool // lose the next reply (see LoseNextReply)
	lost     atomic.Int64
	cut      atomic.Int64 // reply bytes left before a cut, +1 (0: none armed; see CutRepliesAfter)

	mu     sync.Mutex
	stall  chan struct{} // non-nil while stalled: closed on resume
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// New listens on a free 127.0.0.1 port and forwards to target, which must
// be a loopback host:port.
func New(target string) (*Proxy, error) {
	host, _, err := net.SplitHostPort(target)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: target %q: %w", target, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("faultproxy: target %q is not a loopback address", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: %w", err)
	}
	p := &Proxy{target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Start is New for a test: it fails t on error and closes the proxy at
// t's cleanup.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	p, err := New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// Addr is the proxy's 127.0.0.1:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetLatency delays every byte by d in each direction (a round trip costs
// 2d more), from the next bytes read.
func (p *Proxy) SetLatency(d time.Duration) { p.latency.Store(int64(d)) }

// Stall stops forwarding: connections are accepted and kept, bytes are
// read and held, nothing is delivered until Resume.
func (p *Proxy) Stall() {
	p.mu.Lock()
	if p.stall == nil {
		p.stall = make(chan struct{})
	}
	p.mu.Unlock()
}

// Resume ends a stall: the held bytes are delivered, in order.
func (p *Proxy) Resume() {
	p.mu.Lock()
	if p.stall != nil {
		close(p.stall)
		p.stall = nil
	}
	p.mu.Unlock()
}

// Refuse makes the proxy close new connections at once (on) or accept
// them again (off).
func (p *Proxy) Refuse(on bool) { p.refuse.Store(on) }

// Drop closes every open connection, both sides.
func (p *Proxy) Drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

// LoseNextReply makes the proxy lose the next bytes the target sends, on
// any connection: they are discarded and that connection is closed, both
// sides, as a reply lost on its way back after the server acted on the
// request.
func (p *Proxy) LoseNextReply() { p.lose.Store(true) }

// CutRepliesAfter makes the proxy forward n more bytes the target sends,
// on any connection, and then close the connection those bytes would
// exceed n on, both sides: a reply broken part way, as a deadline or a
// broken connection breaks a pipeline whose first replies came back. A
// cut counts as a lost reply.
func (p *Proxy) CutRepliesAfter(n int64) { p.cut.Store(n + 1) }

// Lost is the number of replies LoseNextReply has lost.
func (p *Proxy) Lost() int64 { return p.lost.Load() }

// Accepted is the number of connections accepted and forwarded so far.
func (p *Proxy) Accepted() int64 { return p.accepted.Load() }

// Close stops listening, drops every connection and waits for the
// proxy's goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	err := p.ln.Close()
	for c := range p.conns {
		_ = c.Close()
	}
	if p.stall != nil {
		close(p.stall)
		p.stall = nil
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.refuse.Load() {
			_ = c.Close()
			continue
		}
		// A loopback dial answers at once; the bound only stops a
		// frozen target from holding the accept loop, and is one no
		// loaded machine reaches.
		up, err := net.DialTimeout("tcp", p.target, 10*time.Second)
		if err != nil {
			_ = c.Close()
			continue
		}
		if !p.track(c, up) {
			return
		}
		p.accepted.Add(1)
		p.wg.Add(2)
		go p.pipe(up, c, false)
		go p.pipe(c, up, true)
	}
}

// track registers both sides of a connection; false once closed.
func (p *Proxy) track(a, b net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = a.Close()
		_ = b.Close()
		return false
	}
	p.conns[a], p.conns[b] = struct{}{}, struct{}{}
	return true
}

func (p *Proxy) untrack(a, b net.Conn) {
	p.mu.Lock()
	delete(p.conns, a)
	delete(p.conns, b)
	p.mu.Unlock()
	_ = a.Close()
	_ = b.Close()
}

// chunk is bytes read from one side, due on the other at due.
type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies from src to dst, each chunk delayed by the latency and held
// during a stall; order is kept. It closes both sides when either fails,
// or when it loses a reply (replies: src is the target).
func (p *Proxy) pipe(dst, src net.Conn, replies bool) {
	defer p.wg.Done()
	q := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ch := range q {
			if !p.deliver(dst, ch) {
				p.untrack(dst, src)
				for range q { // let the reader finish
				}
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && replies && p.lose.CompareAndSwap(true, false) {
			p.lost.Add(1)
			break
		}
		if n > 0 && replies {
			if left := p.cut.Load() - 1; left >= 0 {
				if int64(n) > left {
					if p.cut.CompareAndSwap(left+1, 0) {
						q <- chunk{b: append([]byte(nil), buf[:left]...), due: time.Now().Add(time.Duration(p.latency.Load()))}
						p.lost.Add(1)
						break
					}
				} else {
					p.cut.Add(-int64(n))
				}
			}
		}
		if n > 0 {
			q <- chunk{b: append([]byte(nil), buf[:n]...), due: time.Now().Add(time.Duration(p.latency.Load()))}
		}
		if err != nil {
			break
		}
	}
	close(q)
	<-done
	p.untrack(dst, src)
}

// deliver waits until ch is due and no stall holds it, then writes it.
func (p *Proxy) deliver(dst net.Conn, ch chunk) bool {
	if d := time.Until(ch.due); d > 0 {
		t := time.NewTimer(d)
		<-t.C
	}
	for {
		p.mu.Lock()
		stall, closed := p.stall, p.closed
		p.mu.Unlock()
		if closed {
			return false
		}
		if stall == nil {
			break
		}
		<-stall
	}
	_, err := dst.Write(ch.b)
	return err == nil
}
