package middleware_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/middleware"
)

// At most one request per client IP in flight: a second one arriving
// while the first runs is answered 429.
func ExampleNewConcurrency() {
	slots, err := inflight.NewMemory(1, inflight.MemoryOptions{})
	if err != nil {
		panic(err)
	}
	c, err := middleware.NewConcurrency(slots, middleware.ConcurrencyOptions{})
	if err != nil {
		panic(err)
	}
	var h http.Handler
	h = c.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// While this request runs, the same client asks again.
		inner := httptest.NewRecorder()
		h.ServeHTTP(inner, r.Clone(r.Context()))
		fmt.Println("second, while the first runs:", inner.Code, "Retry-After", inner.Header().Get("Retry-After"))
	}))

	r := httptest.NewRequest(http.MethodGet, "/report", nil)
	r.RemoteAddr = "192.0.2.7:4321"
	first := httptest.NewRecorder()
	h.ServeHTTP(first, r)
	fmt.Println("first:", first.Code)
	// Output:
	// second, while the first runs: 429 Retry-After 1
	// first: 200
}
