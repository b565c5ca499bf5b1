package middleware_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unitCounter is a limiter of the application's own: its Results cannot
// say Taken (core's field), yet each admission takes a unit.
type unitCounter struct {
	mu   sync.Mutex
	used int64
}

func (c *unitCounter) AllowN(context.Context, string, int64) (core.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.used++
	return core.Result{Allowed: true, Remaining: 100 - c.used}, nil
}

func (c *unitCounter) Refund(context.Context, string, core.Result) (core.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.used--
	return core.Result{Allowed: true}, nil
}

func (c *unitCounter) units() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// A request charged on two routes, one the application's own limiter
// admitting it and the other's store down, kept that limiter's unit when
// it was not served (FailClosed: 503), and when CountIf did not count
// it: the middleware gave back only what a Result says Taken, which a
// limiter outside core never says. The Pair now tells what it holds.
func TestAttackPairKeepsAForeignUnitOfAnUnservedRequest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   middleware.Options
		status int
		units  int64
	}{
		{"fail closed", middleware.Options{}, 503, 0},
		{"fail open, not counted", middleware.Options{FailOpen: true, CountIf: func(s int) bool { return s < 400 }}, 404, 0},
		{"fail open, counted", middleware.Options{FailOpen: true, CountIf: func(s int) bool { return s < 400 }}, 200, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &unitCounter{}
			rt := middleware.NewRoutes(nil)
			require.NoError(t, rt.Add("/api/", c))
			require.NoError(t, rt.Add("POST /api/login", erringLimiter{errDown}))
			m, err := middleware.NewSelect(rt, tc.opts)
			require.NoError(t, err)
			app := http.NewServeMux()
			status := tc.status
			app.HandleFunc("/api/", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) })
			h := m.Handler(app)
			assert.Equal(t, tc.status, serve(h, "POST", "/api/login/", "192.0.2.1:1", nil))
			assert.Equal(t, tc.units, c.units())
		})
	}
}
