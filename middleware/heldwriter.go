package middleware

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/internal/same"
)

// heldWriter is the writer [Concurrency] gives its handler: a connection
// the handler takes over (http.Hijacker, through http.ResponseController
// too: a WebSocket upgrade) is a request still in flight after the
// handler returns, served by goroutines of the application's, so it holds
// the request's slot until it is closed (or collected unclosed).
//
// It is an http.Flusher where the writer under it is one, so that a
// handler checking for one does not stream into a writer that cannot
// flush, and an http.Hijacker wherever a connection can be taken over
// under it (by type assertion or, through writers that unwrap, by
// http.ResponseController), so that no such connection escapes its slot
// (see newHeldWriter). It is an http.Pusher, an http.CloseNotifier and an
// io.ReaderFrom over any writer, forwarding to the writer under it where
// it can (net/http's ReadFrom sends a file with sendfile). It unwraps for
// http.ResponseController.
type heldWriter struct {
	http.ResponseWriter
	c        *Concurrency
	r        *http.Request
	slot     *inflight.Slot // the request's: released once (see release)
	key      string         // slot's key in c's limiter
	hijacked atomic.Bool

	notifyOnce sync.Once // makes notify, under a writer that cannot notify
	notify     chan bool // CloseNotify's channel there
}

// holdsSlot reports whether w, or a writer it unwraps to, is the heldWriter
// of a request holding a slot of key in l: a second mount of l on the
// request's path (a global Concurrency and a route's) then takes none.
func holdsSlot(w http.ResponseWriter, l ConcurrencyLimiter, key string) bool {
	for range maxUnwrap {
		switch t := w.(type) {
		case interface{ held() *heldWriter }:
			if h := t.held(); h.key == key && same.Is(h.c.lim, l) {
				return true
			}
			w = t.held().ResponseWriter
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
	return false
}

// maxUnwrap bounds the writers walked through Unwrap: one whose Unwrap
// leads back to itself would hang every request, not only (as under
// http.ResponseController) the ones that hijack or flush.
const maxUnwrap = 64

// release gives the request's slot back; calling it again does nothing
// (inflight.Slot releases once).
func (h *heldWriter) release() { h.c.release(h.r, h.slot) }

// held returns h, whichever of the types of newHeldWriter embeds it.
func (h *heldWriter) held() *heldWriter { return h }

// Unwrap returns the writer under it, for http.ResponseController.
func (h *heldWriter) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// canHijack reports whether http.ResponseController may take w's
// connection over: w, or a writer it unwraps to, is an http.Hijacker (or
// the writers unwrap beyond maxUnwrap: the Hijack is then the heldWriter's
// own, so that no connection escapes its slot).
func canHijack(w http.ResponseWriter) bool {
	for range maxUnwrap {
		switch t := w.(type) {
		case http.Hijacker:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
	return true
}

// flushErrorer is http.Flusher with http.ResponseController's FlushError.
type flushErrorer interface {
	http.Flusher
	FlushError() error
}

// heldFlusher is a heldWriter's Flush and FlushError, offered where the
// writer under it is an http.Flusher.
type heldFlusher heldWriter

// Flush implements http.Flusher: see FlushError.
func (h *heldFlusher) Flush() { _ = h.FlushError() }

// FlushError flushes the writer under it through http.ResponseController
// (its FlushError when it has one).
func (h *heldFlusher) FlushError() error {
	return http.NewResponseController(h.ResponseWriter).Flush()
}

// heldHijacker is a heldWriter's Hijack, offered where a connection can be
// taken over under it (see canHijack).
type heldHijacker heldWriter

// Hijack takes the connection over (through http.ResponseController);
// closing the connection it returns releases the request's slot.
func (hh *heldHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h := (*heldWriter)(hh)
	c, rw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return c, rw, err
	}
	h.hijacked.Store(true)
	hc := &heldConn{Conn: c, release: h.release}
	// A connection dropped unclosed (the runtime closes its descriptor
	// when it is collected) gives the slot back then, not never. (In a
	// goroutine: a release may wait on the limiter's store, and the
	// runtime's cleanups run one at a time.)
	hc.cleanup = runtime.AddCleanup(hc, func(release func()) { go release() }, hc.release)
	return hc, rw, nil
}

// heldConn is a connection taken over: its Close releases the slot of
// the request that took it.
type heldConn struct {
	net.Conn
	release func()
	cleanup runtime.Cleanup // releases the slot if it is collected unclosed
}

// Close closes the connection and releases the slot (once, whatever
// Close returns).
func (c *heldConn) Close() error {
	err := c.Conn.Close()
	c.cleanup.Stop()
	c.release()
	return err
}

// CloseWrite half-closes the connection under it (TCP and TLS ones can:
// httputil.ReverseProxy half-closes an upgraded connection whose backend
// has ended and copies on the other way); the slot is held until Close.
// Under a connection that cannot, it fails with errors.ErrUnsupported.
func (c *heldConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return fmt.Errorf("middleware: %T cannot half-close: %w", c.Conn, errors.ErrUnsupported)
}

// NetConn returns the connection under it, as tls.Conn's does.
func (c *heldConn) NetConn() net.Conn { return c.Conn }
