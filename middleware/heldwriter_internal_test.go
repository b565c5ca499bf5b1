package middleware

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/internal/within"

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

// flusherOnly and hijackerOnly offer one optional interface each.
type flusherOnly struct{ *httptest.ResponseRecorder }

func (flusherOnly) Flush() {}

type hijackerOnly struct{ http.ResponseWriter }

func (hijackerOnly) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, http.ErrNotSupported
}

// TestHeldWriterTypes: the heldWriter over a writer is a Flusher where the
// writer is one, a Hijacker where it is one, and a Pusher, a
// CloseNotifier and a ReaderFrom always, which work over a writer that is
// none of them; it is the heldWriter over the writer it was given.
func TestHeldWriterTypes(t *testing.T) {
	for _, c := range []struct {
		w       http.ResponseWriter
		fl, hij bool
	}{
		{w: httptest.NewRecorder(), fl: true}, // a recorder flushes
		{w: struct{ http.ResponseWriter }{httptest.NewRecorder()}},
		{w: hijackerOnly{struct{ http.ResponseWriter }{httptest.NewRecorder()}}, hij: true},
		{w: hijackerOnly{flusherOnly{httptest.NewRecorder()}}, hij: true},
		{w: everything{httptest.NewRecorder()}, fl: true, hij: true},
	} {
		got, h := newHeldWriter(c.w)
		require.Same(t, h, got.(interface{ held() *heldWriter }).held(), "%T", c.w)
		require.Equal(t, c.w, h.Unwrap())
		_, fl := got.(http.Flusher)
		_, fe := got.(interface{ FlushError() error })
		_, hj := got.(http.Hijacker)
		require.Equal(t, [...]bool{c.fl, c.fl, c.hij}, [...]bool{fl, fe, hj}, "%T", c.w)
		require.Implements(t, (*http.Pusher)(nil), got)
		//lint:ignore SA1019 the deprecated interface is what such handlers assert
		require.Implements(t, (*http.CloseNotifier)(nil), got)
		require.Implements(t, (*io.ReaderFrom)(nil), got)
	}
	// Over a writer that is none of them.
	ctx, cancel := context.WithCancel(context.Background())
	rec := httptest.NewRecorder()
	got, h := newHeldWriter(struct{ http.ResponseWriter }{rec})
	h.r = httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	require.ErrorIs(t, got.(http.Pusher).Push("/x", nil), http.ErrNotSupported)
	n, err := got.(io.ReaderFrom).ReadFrom(strings.NewReader("body"))
	require.NoError(t, err)
	require.EqualValues(t, 4, n)
	require.Equal(t, "body", rec.Body.String())
	//lint:ignore SA1019 the deprecated interface is what such handlers assert
	gone := got.(http.CloseNotifier).CloseNotify()
	require.Empty(t, gone)
	cancel() // the client goes away
	within.Recv(t, gone, "the close notification")
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
