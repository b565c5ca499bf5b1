package login_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
)

// A throttled attempt behind a rate-limit middleware that gave it its
// last unit: Retry-After was the guard's own wait (2 s), and a retry then
// was refused by the rate limit for 58 s more. It is now the longer wait
// the rate limit's fields, already on the response, tell of.
func TestAttackThrottledBehindARateLimitWaitsForIt(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	rec.Header().Set("RateLimit", `"global";r=0;t=60`)
	login.WriteThrottled(rec, 2*time.Second)
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "60", rec.Header().Get("Retry-After"))

	rec = httptest.NewRecorder()
	rec.Header().Set("RateLimit", `"global";r=3;t=60`)
	login.WriteThrottled(rec, 2*time.Second)
	assert.Equal(t, "2", rec.Header().Get("Retry-After"), "the rate limit has units left")
}
