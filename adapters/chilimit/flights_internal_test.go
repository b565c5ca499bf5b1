package chilimit

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"unsafe"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A flight is held in place by a map (a value over 128 bytes would be
// allocated for each request a Middleware of one use serves), and a
// request is held only while it is served, by a use that marks nothing.
func TestFlightsHeldWhileServed(t *testing.T) {
	t.Parallel()
	assert.LessOrEqual(t, unsafe.Sizeof(flight{}), uintptr(128))
	p, err := core.Single("api", core.FixedWindow{Quota: 100, Window: 3600e9})
	require.NoError(t, err)
	l, err := core.NewLimiter(p)
	require.NoError(t, err)
	m, err := middleware.New(l, middleware.Options{})
	require.NoError(t, err)
	s := usesOf(m)
	held := 0
	r := chi.NewRouter()
	r.Use(Limit(m))
	r.Get("/x", func(_ http.ResponseWriter, req *http.Request) {
		held = s.flights.count()
		assert.True(t, s.flights.took(req, m, "/x", ""), "the request in flight")
		other := req.Clone(req.Context())
		assert.False(t, s.flights.took(other, m, "/x", ""), "another request")
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x", nil))
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, 1, held)
	assert.Zero(t, s.flights.count())
}

// count returns how many requests f holds.
func (f *flights) count() int {
	n := 0
	for i := range f.shards {
		s := &f.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}
