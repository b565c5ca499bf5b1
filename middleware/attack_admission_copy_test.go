package middleware_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An Admission ended through two copies (an adapter keeping one on its
// stack and handing another to a writer that ends it later, as ginlimit
// does) was refunded once by each copy: End's once-only flag was copied
// with the struct, and only a *core.Limiter refused the second refund. A
// limiter of the application's own gave back two units for one request,
// and a client answered with successes got a unit more per copy. The
// copies now share one flag: one refund, whatever the limiter.
func TestAttackAdmissionCopiesRefundAForeignLimiterOnce(t *testing.T) {
	t.Parallel()
	c := &unitCounter{}
	m, err := middleware.New(c, middleware.Options{CountIf: func(s int) bool { return s >= 400 }})
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	ctx := context.Background()
	for range 3 {
		a, ok := m.Begin(httptest.NewRecorder(), req, "")
		require.True(t, ok)
		require.True(t, a.Counting())
		cp := a
		a.End(ctx, http.StatusOK)
		cp.End(ctx, http.StatusOK)
		later := new(middleware.Admission)
		*later = cp
		later.End(ctx, http.StatusOK)
	}
	assert.Equal(t, int64(0), c.units(), "units held after 3 requests, each refunded once")
}
