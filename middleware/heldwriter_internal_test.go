package middleware

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// everything is a writer with every optional interface.
type everything struct{ *httptest.ResponseRecorder }

func (everything) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, http.ErrNotSupported
}
func (everything) Push(string, *http.PushOptions) error { return nil }
func (everything) CloseNotify() <-chan bool             { return nil }
func (everything) ReadFrom(r io.Reader) (int64, error)  { return io.Copy(io.Discard, r) }

// TestHeldWriterOfEverySet: each of the 32 types of heldWriter offers the
// optional interfaces of its set's bits, and no other, and is a
// heldWriter over the writer it was given.
func TestHeldWriterOfEverySet(t *testing.T) {
	w := everything{httptest.NewRecorder()}
	for set := range 32 {
		got, h := heldWriterOf(set, w, w, w, w)
		require.Same(t, h, got.(interface{ held() *heldWriter }).held(), "set %d", set)
		require.Equal(t, http.ResponseWriter(w), h.Unwrap())
		_, fl := got.(http.Flusher)
		_, fe := got.(interface{ FlushError() error })
		_, hj := got.(http.Hijacker)
		_, pu := got.(http.Pusher)
		//lint:ignore SA1019 the deprecated interface is what such handlers assert
		_, cn := got.(http.CloseNotifier)
		_, rf := got.(io.ReaderFrom)
		require.Equal(t, [...]bool{set&1 != 0, set&1 != 0, set&2 != 0, set&4 != 0, set&8 != 0, set&16 != 0},
			[...]bool{fl, fe, hj, pu, cn, rf}, "set %d", set)
	}
}

// selfUnwrapper is a buggy middleware's writer whose Unwrap returns itself.
type selfUnwrapper struct{ *httptest.ResponseRecorder }

func (s selfUnwrapper) Unwrap() http.ResponseWriter { return s }

// TestHeldWriterOverAWriterUnwrappingToItself: the walks through Unwrap
// end: a writer unwrapping to itself costs a request no hang (its writer
// keeps Hijack, so that no connection could escape its slot).
func TestHeldWriterOverAWriterUnwrappingToItself(t *testing.T) {
	w := selfUnwrapper{httptest.NewRecorder()}
	require.True(t, canHijack(w))
	require.False(t, holdsSlot(w, nil, "k"))
	got, _ := newHeldWriter(w)
	_, hj := got.(http.Hijacker)
	require.True(t, hj)
}
