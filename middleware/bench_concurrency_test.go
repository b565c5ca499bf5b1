package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/internal/httpbench"
	"github.com/floodgate-go/floodgate/middleware"
)

// BenchmarkConcurrency is the cost of Concurrency over a bare handler on
// the allow path, with an in-memory limiter.
func BenchmarkConcurrency(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	h := concurrency(b, memSlots(b, 1), middleware.ConcurrencyOptions{Key: constKey}, handler)
	httpbench.Serve(b, h, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusOK)
}
