package login_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unwrapOnly is a writer that offers only Unwrap, as a logger's often does.
type unwrapOnly struct{ http.ResponseWriter }

func (u unwrapOnly) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// plain hides every optional interface of its writer: nothing under it
// can flush.
type plain struct{ w http.ResponseWriter }

func (p plain) Header() http.Header         { return p.w.Header() }
func (p plain) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p plain) WriteHeader(code int)        { p.w.WriteHeader(code) }

// A login handler's flush reaches a flushing writer under one that only
// unwraps (it was lost: the guard's writer flushed only a writer that was
// an http.Flusher itself), and reports http.ErrNotSupported where nothing
// flushes. The attempt's outcome is told once, as 200 at the flush.
func TestGuardFlushThroughUnwrap(t *testing.T) {
	t.Parallel()
	var flushErr error
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flushErr = http.NewResponseController(w).Flush()
	})
	g := newGuard(t, coretest.NewClock(t0), login.Options{})

	rec := httptest.NewRecorder()
	g.Handler(h).ServeHTTP(unwrapOnly{rec}, formRequest("alice", "x", "192.0.2.1:1"))
	require.NoError(t, flushErr)
	assert.True(t, rec.Flushed, "the flush reached the recorder")
	assert.Equal(t, http.StatusOK, rec.Code)

	rec = httptest.NewRecorder()
	g.Handler(h).ServeHTTP(plain{rec}, formRequest("alice", "x", "192.0.2.1:1"))
	assert.True(t, errors.Is(flushErr, http.ErrNotSupported), "got %v", flushErr)
	assert.False(t, rec.Flushed)
}
