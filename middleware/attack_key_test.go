package middleware_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// apiKey is a key function as applications write it, against
// keyfunc.Func's contract: "" for a request without the header.
func apiKey(r *http.Request) (string, error) { return r.Header.Get("X-API-Key"), nil }

// A key function that gives an empty key is refused like one that fails,
// by the rate and the concurrency middleware: requests without a key are
// never counted together in one bucket, where one client could spend it
// for every other. Before, they shared the bucket "".
func TestAttackEmptyKeyIsNoKey(t *testing.T) {
	var errs []error
	onError := func(_ *http.Request, err error) { errs = append(errs, err) }
	m, err := middleware.New(limiter(t, newClock(), core.FixedWindow{Quota: 100, Window: time.Hour}), middleware.Options{Key: apiKey, OnError: onError})
	require.NoError(t, err)
	slots, err := inflight.NewMemory(100, inflight.MemoryOptions{})
	require.NoError(t, err)
	c, err := middleware.NewConcurrency(slots, middleware.ConcurrencyOptions{Key: apiKey, OnError: onError})
	require.NoError(t, err)
	for name, h := range map[string]http.Handler{"rate": m.Handler(okHandler), "concurrency": c.Handler(okHandler)} {
		errs = nil
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		assert.Equal(t, http.StatusForbidden, w.Code, name)
		require.Len(t, errs, 1, name)
		assert.True(t, errors.Is(errs[0], keyfunc.ErrNoKey), name)
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("X-API-Key", "k")
		w = httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.Equal(t, http.StatusOK, w.Code, name)
	}
}
