package login_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

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
	hdr, err := headers.New(headers.Options{Omit: headers.XRateLimit | headers.IETF})
	require.NoError(t, err)
	h := guardBehindBurstOf7(t, coretest.NewClock(t0), middleware.Options{Headers: hdr}, login.Options{Store: downStore{}})
	rec := seventhAttempt(t, h, http.StatusServiceUnavailable)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "87", rec.Header().Get("Retry-After"))
}
