package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func init() { gin.SetMode(gin.TestMode) }

// served sends n requests with the API key (none when "") from remote and
// returns how many passed.
func served(t *testing.T, h http.Handler, key, remote string, n int) int {
	t.Helper()
	ok := 0
	for range n {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = remote
		if key != "" {
			r.Header.Set("X-API-Key", key)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch w.Code {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	return ok
}

// Two processes sharing one Redis: an issued key gets 1,000 a minute
// wherever it comes from, anonymous clients and made-up keys 60 per IP
// together, and one process's requests count in the other.
func TestAPIKeysOrIP(t *testing.T) {
	srv := redistest.Start(t)
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	engine := func() http.Handler {
		store, err := redisstore.New(srv.Client(t), redisstore.Options{CallerClock: true, Timeout: 10 * time.Second})
		require.NoError(t, err)
		t.Cleanup(func() { _ = store.Close() })
		return newEngine(core.WithStore(store), core.WithClock(clk))
	}
	a, b := engine(), engine()

	assert.Equal(t, 600, served(t, a, "key-of-acme", "192.0.2.1:1", 600))
	assert.Equal(t, 400, served(t, b, "key-of-acme", "192.0.2.2:1", 401), "the key's 1,000 are shared by both processes")
	assert.Equal(t, 1000, served(t, a, "key-of-globex", "192.0.2.1:1", 1000), "every key has its own")

	assert.Equal(t, 30, served(t, a, "", "198.51.100.1:1", 30))
	assert.Equal(t, 30, served(t, b, "made-up", "198.51.100.1:1", 40), "a made-up key is counted by its IP")
	assert.Equal(t, 60, served(t, a, "", "198.51.100.2:1", 70), "another IP has its own 60")

	clk.Advance(time.Second)
	assert.Equal(t, 1, served(t, b, "", "198.51.100.1:1", 2), "one more a second")
}
