package middleware_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The inner middleware reads the fields a response holds under its own
// Writer's names too (headers.Writer.HeldWait), but the mark of the
// shared decision covered only the outer's names and those that look
// like rate-limit fields: fields under the inner's names of its own
// ("X-Quota-*"), written by another middleware outside the outer one or
// between them, were not seen, and the 10th request was told 87 s (the
// outer limit's next admission) where they tell of 1,000 s. Such fields
// now send the inner middleware back to reading every field, as before
// the shared decision.
func TestAttackStackedSharedWaitReadsTheInnerNames(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	nothing := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	quota := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Quota-Remaining", "0")
			w.Header().Set("X-Quota-Reset", strconv.FormatInt(at.Unix()+1000, 10))
			next.ServeHTTP(w, r)
		})
	}
	hdr, err := headers.New(headers.Options{Names: map[headers.Field]string{
		headers.XRateLimitRemaining: "X-Quota-Remaining", headers.XRateLimitReset: "X-Quota-Reset"}})
	require.NoError(t, err)
	for _, between := range []bool{true, false} {
		clk := coretest.NewClock(at)
		outer, inner := stackedGCRA(t, clk, middleware.Options{Headers: hdr})
		h := outer.Handler(quota(inner.Handler(nothing)))
		if !between {
			h = quota(outer.Handler(inner.Handler(nothing)))
		}
		for i := 1; i <= 9; i++ {
			require.Equal(t, http.StatusOK, getOnce(h).Code, "request %d", i)
		}
		assert.Equal(t, "1000", retryAfterOf(t, h), "between: %v", between)
	}
}
