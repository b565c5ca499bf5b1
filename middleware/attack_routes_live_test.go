package middleware_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Routes table changed while it serves (a route added on a reload) was
// written, maps and all, under the requests reading it: a data race, and
// Go's "concurrent map read and map write", a fatal error no recover
// catches, ended the process. Add and Share now refuse, once Routes has
// served a request, with an error that leaves the table
// as it serves; the error is not sticky (it would refuse every request).
func TestAttackRoutesChangedWhileServing(t *testing.T) {
	clk := newClock()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /login", limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})))
	m, err := middleware.NewSelect(tenantRoutes{rt}, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	assert.Equal(t, 200, serve(h, "POST", "/login", "192.0.2.1:1", nil))

	err = rt.Add("GET /users/{id}", limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour}))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorIs(t, rt.Share("g", limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour}), "/x"), core.ErrInvalidConfig)
	assert.Equal(t, []string{"POST /login"}, rt.Patterns())
	assert.Equal(t, 429, serve(h, "POST", "/login", "192.0.2.1:1", nil), "the table serves as it was")

	// Routes taken by NewSelect, not serving yet, still takes routes.
	rt2 := middleware.NewRoutes(nil)
	m2, err := middleware.NewSelect(rt2, middleware.Options{})
	require.NoError(t, err)
	require.NoError(t, rt2.Add("POST /login", limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})))
	h2 := m2.Handler(okHandler)
	assert.Equal(t, 200, serve(h2, "POST", "/login", "192.0.2.1:1", nil))
	assert.Equal(t, 429, serve(h2, "POST", "/login", "192.0.2.1:1", nil))
}

// Add racing the first requests: each either happens before them all (its
// route serves) or is refused; never a write under a read (-race).
func TestRoutesAddRacingRequests(t *testing.T) {
	clk := newClock()
	rt := middleware.NewRoutes(nil)
	m, err := middleware.NewSelect(tenantRoutes{rt}, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 4 {
		wg.Go(func() {
			<-start
			serve(h, http.MethodGet, "/r", "192.0.2.1:1", nil)
		})
		wg.Go(func() {
			<-start
			_ = rt.Add("/p"+string(rune('a'+i)), limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour}))
		})
	}
	close(start)
	wg.Wait()
	assert.ErrorIs(t, rt.Add("/late", limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})), core.ErrInvalidConfig)
}
