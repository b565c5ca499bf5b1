package middleware

import (
	"context"
	"io"
	"net/http"
)

// newHeldWriter returns a heldWriter over w as the ResponseWriter a
// handler gets and as itself, in one allocation: of one of four types,
// offering http.Flusher where w is one, and http.Hijacker where a
// connection can be taken over under w (see canHijack); every type offers
// http.Pusher, http.CloseNotifier and io.ReaderFrom, whose contracts hold
// over any writer (see their methods).
func newHeldWriter(w http.ResponseWriter) (http.ResponseWriter, *heldWriter) {
	_, flusher := w.(http.Flusher)
	hijacker := canHijack(w)
	switch {
	case flusher && hijacker:
		v := &struct {
			heldWriter
			flushErrorer
			http.Hijacker
		}{heldWriter: heldWriter{ResponseWriter: w}}
		v.flushErrorer, v.Hijacker = (*heldFlusher)(&v.heldWriter), (*heldHijacker)(&v.heldWriter)
		return v, &v.heldWriter
	case flusher:
		v := &struct {
			heldWriter
			flushErrorer
		}{heldWriter: heldWriter{ResponseWriter: w}}
		v.flushErrorer = (*heldFlusher)(&v.heldWriter)
		return v, &v.heldWriter
	case hijacker:
		v := &struct {
			heldWriter
			http.Hijacker
		}{heldWriter: heldWriter{ResponseWriter: w}}
		v.Hijacker = (*heldHijacker)(&v.heldWriter)
		return v, &v.heldWriter
	}
	h := &heldWriter{ResponseWriter: w}
	return h, h
}

// ReadFrom implements io.ReaderFrom with the writer under it when it can
// (net/http's sends a file with sendfile), with io.Copy otherwise.
func (h *heldWriter) ReadFrom(src io.Reader) (int64, error) {
	if rf, ok := h.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(writerOnly{h.ResponseWriter}, src)
}

// writerOnly hides a writer's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }

// Push implements http.Pusher with the writer under it, or fails with
// http.ErrNotSupported, as a Pusher does where push is not supported.
func (h *heldWriter) Push(target string, opts *http.PushOptions) error {
	if p, ok := h.ResponseWriter.(http.Pusher); ok {
		return p.Push(target, opts)
	}
	return http.ErrNotSupported
}

// CloseNotify implements http.CloseNotifier with the writer under it
// (net/http's are, HTTP/1 and HTTP/2 alike); under a writer that cannot
// notify, the channel receives once the request's context ends (its
// client gone, or the request served), so that a handler waiting on it
// never works on for a client gone, holding its slot. As net/http's, it
// returns one channel however often it is called, made and registered on
// the context at the first call: a streaming handler calling it in every
// turn of its loop costs nothing more.
func (h *heldWriter) CloseNotify() <-chan bool {
	//lint:ignore SA1019 forwarded for the handlers that still use it
	if cn, ok := h.ResponseWriter.(http.CloseNotifier); ok {
		return cn.CloseNotify()
	}
	h.notifyOnce.Do(func() {
		ch := make(chan bool, 1)
		ctx := context.Background()
		if h.r != nil {
			ctx = h.r.Context()
		}
		context.AfterFunc(ctx, func() { ch <- true })
		h.notify = ch
	})
	return h.notify
}
