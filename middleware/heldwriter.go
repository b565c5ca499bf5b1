package middleware

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core/inflight"
)

// heldWriter is the writer [Concurrency] gives its handler: a connection
// the handler takes over (http.Hijacker, through http.ResponseController
// too: a WebSocket upgrade) is a request still in flight after the
// handler returns, served by goroutines of the application's, so it holds
// the request's slot until it is closed (or collected unclosed). It
// unwraps for http.ResponseController and forwards Flush, ReadFrom, Push
// and CloseNotify, so that the handler keeps what the server's writer
// offers.
type heldWriter struct {
	http.ResponseWriter
	c        *Concurrency
	r        *http.Request
	slot     *inflight.Slot // the request's: released once (see release)
	hijacked atomic.Bool
}

// release gives the request's slot back; calling it again does nothing
// (inflight.Slot releases once).
func (h *heldWriter) release() { h.c.release(h.r, h.slot) }

// Hijack takes the connection over (through http.ResponseController, so
// it fails with http.ErrNotSupported where the writer under it cannot);
// closing the connection it returns releases the request's slot.
func (h *heldWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
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

// Flush implements http.Flusher: see FlushError.
func (h *heldWriter) Flush() { _ = h.FlushError() }

// FlushError flushes the writer under it through http.ResponseController
// (http.ErrNotSupported when nothing under it can flush).
func (h *heldWriter) FlushError() error {
	return http.NewResponseController(h.ResponseWriter).Flush()
}

// ReadFrom implements io.ReaderFrom with the writer under it when it can
// (net/http's sends a file with sendfile), with io.Copy otherwise.
func (h *heldWriter) ReadFrom(src io.Reader) (int64, error) {
	if rf, ok := h.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(writerOnly{h.ResponseWriter}, src)
}

// Push implements http.Pusher with the writer under it, or fails with
// http.ErrNotSupported.
func (h *heldWriter) Push(target string, opts *http.PushOptions) error {
	if p, ok := h.ResponseWriter.(http.Pusher); ok {
		return p.Push(target, opts)
	}
	return http.ErrNotSupported
}

// CloseNotify implements http.CloseNotifier with the writer under it
// (net/http's are, HTTP/1 and HTTP/2 alike), so that a handler noticing
// its client hang up this (deprecated) way still does; under a writer that
// cannot, the channel never fires.
func (h *heldWriter) CloseNotify() <-chan bool {
	//lint:ignore SA1019 forwarded for the handlers that still use it
	if cn, ok := h.ResponseWriter.(http.CloseNotifier); ok {
		return cn.CloseNotify()
	}
	return make(chan bool)
}

// Unwrap returns the writer under it, for http.ResponseController.
func (h *heldWriter) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// writerOnly hides a writer's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }

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
