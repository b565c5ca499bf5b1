package middleware

// The 32 types a heldWriter may have: case i of newHeldWriter's switch
// offers the optional interfaces of the bits of i (Flusher 1, Hijacker 2,
// Pusher 4, CloseNotifier 8, io.ReaderFrom 16), each an embedded
// interface: the writer under it's own (Pusher, CloseNotifier,
// ReaderFrom: called with no wrapper between) or the heldWriter's own
// (Flush and FlushError, Hijack). TestHeldWriterOfEverySet checks every case.

import (
	"io"
	"net/http"
)

// newHeldWriter returns a heldWriter, in a type offering exactly the
// optional interfaces w offers (see heldWriter), as the ResponseWriter a
// handler gets and as itself: one allocation, whatever the set.
func newHeldWriter(w http.ResponseWriter) (http.ResponseWriter, *heldWriter) {
	var set int
	_, fl := w.(http.Flusher)
	p, _ := w.(http.Pusher)
	//lint:ignore SA1019 forwarded for the handlers that still use it
	cn, _ := w.(http.CloseNotifier)
	rf, _ := w.(io.ReaderFrom)
	for i, ok := range [...]bool{fl, canHijack(w), p != nil, cn != nil, rf != nil} {
		if ok {
			set |= 1 << i
		}
	}
	return heldWriterOf(set, w, p, cn, rf)
}

// heldWriterOf returns a heldWriter over w offering the interfaces of set
// (see the cases), Pusher, CloseNotifier and ReaderFrom by p, cn and rf.
//
//lint:ignore SA1019 forwarded for the handlers that still use it
func heldWriterOf(set int, w http.ResponseWriter, p http.Pusher, cn http.CloseNotifier, rf io.ReaderFrom) (http.ResponseWriter, *heldWriter) {
	switch set {
	case 0:
		h := &heldWriter{ResponseWriter: w}
		return h, h
	case 1:
		v := &struct {
			heldWriter
			flushErrorer
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer = (*heldFlusher)(h)
		return v, h
	case 2:
		v := &struct {
			heldWriter
			http.Hijacker
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Hijacker = (*heldHijacker)(h)
		return v, h
	case 3:
		v := &struct {
			heldWriter
			flushErrorer
			http.Hijacker
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Hijacker = (*heldFlusher)(h), (*heldHijacker)(h)
		return v, h
	case 4:
		v := &struct {
			heldWriter
			http.Pusher
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Pusher = p
		return v, h
	case 5:
		v := &struct {
			heldWriter
			flushErrorer
			http.Pusher
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Pusher = (*heldFlusher)(h), p
		return v, h
	case 6:
		v := &struct {
			heldWriter
			http.Hijacker
			http.Pusher
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Hijacker, v.Pusher = (*heldHijacker)(h), p
		return v, h
	case 7:
		v := &struct {
			heldWriter
			flushErrorer
			http.Hijacker
			http.Pusher
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Hijacker, v.Pusher = (*heldFlusher)(h), (*heldHijacker)(h), p
		return v, h
	case 8:
		v := &struct {
			heldWriter
			http.CloseNotifier
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.CloseNotifier = cn
		return v, h
	case 9:
		v := &struct {
			heldWriter
			flushErrorer
			http.CloseNotifier
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.CloseNotifier = (*heldFlusher)(h), cn
		return v, h
	case 10:
		v := &struct {
			heldWriter
			http.Hijacker
			http.CloseNotifier
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Hijacker, v.CloseNotifier = (*heldHijacker)(h), cn
		return v, h
	case 11:
		v := &struct {
			heldWriter
			flushErrorer
			http.Hijacker
			http.CloseNotifier
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Hijacker, v.CloseNotifier = (*heldFlusher)(h), (*heldHijacker)(h), cn
		return v, h
	case 12:
		v := &struct {
			heldWriter
			http.Pusher
			http.CloseNotifier
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Pusher, v.CloseNotifier = p, cn
		return v, h
	case 13:
		v := &struct {
			heldWriter
			flushErrorer
			http.Pusher
			http.CloseNotifier
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Pusher, v.CloseNotifier = (*heldFlusher)(h), p, cn
		return v, h
	case 14:
		v := &struct {
			heldWriter
			http.Hijacker
			http.Pusher
			http.CloseNotifier
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Hijacker, v.Pusher, v.CloseNotifier = (*heldHijacker)(h), p, cn
		return v, h
	case 15:
		v := &struct {
			heldWriter
			flushErrorer
			http.Hijacker
			http.Pusher
			http.CloseNotifier
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Hijacker, v.Pusher, v.CloseNotifier = (*heldFlusher)(h), (*heldHijacker)(h), p, cn
		return v, h
	case 16:
		v := &struct {
			heldWriter
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.ReaderFrom = rf
		return v, h
	case 17:
		v := &struct {
			heldWriter
			flushErrorer
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.ReaderFrom = (*heldFlusher)(h), rf
		return v, h
	case 18:
		v := &struct {
			heldWriter
			http.Hijacker
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Hijacker, v.ReaderFrom = (*heldHijacker)(h), rf
		return v, h
	case 19:
		v := &struct {
			heldWriter
			flushErrorer
			http.Hijacker
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Hijacker, v.ReaderFrom = (*heldFlusher)(h), (*heldHijacker)(h), rf
		return v, h
	case 20:
		v := &struct {
			heldWriter
			http.Pusher
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Pusher, v.ReaderFrom = p, rf
		return v, h
	case 21:
		v := &struct {
			heldWriter
			flushErrorer
			http.Pusher
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Pusher, v.ReaderFrom = (*heldFlusher)(h), p, rf
		return v, h
	case 22:
		v := &struct {
			heldWriter
			http.Hijacker
			http.Pusher
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Hijacker, v.Pusher, v.ReaderFrom = (*heldHijacker)(h), p, rf
		return v, h
	case 23:
		v := &struct {
			heldWriter
			flushErrorer
			http.Hijacker
			http.Pusher
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Hijacker, v.Pusher, v.ReaderFrom = (*heldFlusher)(h), (*heldHijacker)(h), p, rf
		return v, h
	case 24:
		v := &struct {
			heldWriter
			http.CloseNotifier
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.CloseNotifier, v.ReaderFrom = cn, rf
		return v, h
	case 25:
		v := &struct {
			heldWriter
			flushErrorer
			http.CloseNotifier
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.CloseNotifier, v.ReaderFrom = (*heldFlusher)(h), cn, rf
		return v, h
	case 26:
		v := &struct {
			heldWriter
			http.Hijacker
			http.CloseNotifier
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Hijacker, v.CloseNotifier, v.ReaderFrom = (*heldHijacker)(h), cn, rf
		return v, h
	case 27:
		v := &struct {
			heldWriter
			flushErrorer
			http.Hijacker
			http.CloseNotifier
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Hijacker, v.CloseNotifier, v.ReaderFrom = (*heldFlusher)(h), (*heldHijacker)(h), cn, rf
		return v, h
	case 28:
		v := &struct {
			heldWriter
			http.Pusher
			http.CloseNotifier
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Pusher, v.CloseNotifier, v.ReaderFrom = p, cn, rf
		return v, h
	case 29:
		v := &struct {
			heldWriter
			flushErrorer
			http.Pusher
			http.CloseNotifier
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Pusher, v.CloseNotifier, v.ReaderFrom = (*heldFlusher)(h), p, cn, rf
		return v, h
	case 30:
		v := &struct {
			heldWriter
			http.Hijacker
			http.Pusher
			http.CloseNotifier
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.Hijacker, v.Pusher, v.CloseNotifier, v.ReaderFrom = (*heldHijacker)(h), p, cn, rf
		return v, h
	case 31:
		v := &struct {
			heldWriter
			flushErrorer
			http.Hijacker
			http.Pusher
			http.CloseNotifier
			io.ReaderFrom
		}{heldWriter: heldWriter{ResponseWriter: w}}
		h := &v.heldWriter
		v.flushErrorer, v.Hijacker, v.Pusher, v.CloseNotifier, v.ReaderFrom = (*heldFlusher)(h), (*heldHijacker)(h), p, cn, rf
		return v, h
	}
	panic("middleware: newHeldWriter: unreachable")
}
