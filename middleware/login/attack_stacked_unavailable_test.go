package login_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// downStore is a store that cannot be reached.
type downStore struct{}

func (downStore) Bind(*core.Policy) (store.Table, error) { return downTable{}, nil }

type downTable struct{}

func (downTable) Do(context.Context, store.Request) (store.Decision, error) {
	return store.Decision{}, errors.New("the store is down")
}

// A guard whose store is down, behind a rate limit of 1,000 a day (a
// burst of 7) that tells clients nothing but Retry-After: the 7th attempt
// takes the rate limit's last unit and the guard answers 503. Its
// Retry-After was 1 s, read from the fields (there are none), where the
// rate limit, which shares its decision with the guard as with a
// throttled attempt's answer, refuses until 87 s.
func TestAttackUnavailableBehindAnExhaustedLimitWaitsForItsNextAdmission(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l, err := core.NewLimiter(core.MustPolicy("global", core.Limit{Name: "global",
		Algorithm: core.GCRA{Rate: core.Per(1000, 24*time.Hour), Burst: 7}}), core.WithClock(clk))
	require.NoError(t, err)
	hdr, err := headers.New(headers.Options{Omit: headers.XRateLimit | headers.IETF})
	require.NoError(t, err)
	m, err := middleware.New(l, middleware.Options{Headers: hdr})
	require.NoError(t, err)
	h := m.Handler(newGuard(t, clk, login.Options{Store: downStore{}}).Handler(&app{}))
	for i := 1; i <= 6; i++ {
		require.Equal(t, http.StatusServiceUnavailable, serve(h, formRequest("alice", "bad", "192.0.2.1:1")).Code, "attempt %d", i)
	}
	rec := serve(h, formRequest("alice", "bad", "192.0.2.1:1"))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "87", rec.Header().Get("Retry-After"))
}
