package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/floodgate-go/floodgate/middleware"
)

// TestConcurrencyAllocationsPerRequest: the writer that keeps a hijacked
// connection's slot (see middleware.Concurrency) costs no allocation more
// than the release it carries did before it: an admitted request with an
// in-memory limiter four, a skipped one none.
func TestConcurrencyAllocationsPerRequest(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	h := concurrency(t, memSlots(t, 1), middleware.ConcurrencyOptions{Key: constKey}, noContent)
	assert.Equal(t, 4.0, allocsPerRequest(t, h, r, http.StatusNoContent), "admitted")
	skip := concurrency(t, memSlots(t, 1), middleware.ConcurrencyOptions{Key: constKey,
		Skip: func(*http.Request) bool { return true }}, noContent)
	assert.Equal(t, 0.0, allocsPerRequest(t, skip, r, http.StatusNoContent), "skipped")
}
