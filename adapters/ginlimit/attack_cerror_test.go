package ginlimit_test

import (
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A handler that fails with c.Error, for an error-handling middleware
// outside Limit to answer, leaves its request counted whatever CountIf says
// of a status Limit never saw: a CountIf counting failed logins only (401)
// must not refund it as a 500 Limit made up. Before, every such failure
// was refunded under that CountIf: 6 guesses through a limit of 2, all
// answered 401.
func TestAttackCErrorStaysCountedWhateverCountIf(t *testing.T) {
	var mu sync.Mutex
	var errs []error
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(2), Burst: 2}), middleware.Options{
		CountIf: func(s int) bool { return s == http.StatusUnauthorized },
		OnError: func(_ *http.Request, err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() },
	})
	require.NoError(t, err)
	e := gin.New()
	e.Use(errorsAs401, ginlimit.Limit(m, e))
	e.POST("/login", func(c *gin.Context) { _ = c.Error(errors.New("wrong password")) })
	e.POST("/ok", func(c *gin.Context) { c.String(http.StatusOK, "welcome") })
	var got []int
	for range 6 {
		got = append(got, do(e, http.MethodPost, "/login", "192.0.2.1:1").Code)
	}
	assert.Equal(t, []int{401, 401, 429, 429, 429, 429}, got)
	// A success written by the handler is still refunded.
	for range 3 {
		assert.Equal(t, http.StatusOK, do(e, http.MethodPost, "/ok", "192.0.2.2:1").Code)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, errs, "an error left for the middleware outside to answer is no missing response")
}

// The status the middleware outside writes for c.Error's errors is the one
// CountIf judges: one it does not count is refunded; with none written
// through c.Writer the request stays counted.
func TestCErrorJudgedByTheStatusWrittenOutside(t *testing.T) {
	for name, c := range map[string]struct {
		outside gin.HandlerFunc
		want    []int
	}{
		"server error refunded": {outside: func(c *gin.Context) {
			c.Next()
			if len(c.Errors) > 0 && !c.Writer.Written() {
				c.AbortWithStatus(http.StatusServiceUnavailable)
			}
		}, want: []int{503, 503, 503, 503}},
		"nothing written outside": {outside: func(c *gin.Context) { c.Next() }, want: []int{200, 200, 429, 429}},
	} {
		t.Run(name, func(t *testing.T) {
			m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(2), Burst: 2}), middleware.Options{
				CountIf: func(s int) bool { return s == http.StatusUnauthorized },
			})
			require.NoError(t, err)
			e := gin.New()
			e.Use(c.outside, ginlimit.Limit(m, e))
			e.POST("/login", func(c *gin.Context) { _ = c.Error(errors.New("database down")) })
			var got []int
			for range len(c.want) {
				got = append(got, do(e, http.MethodPost, "/login", "192.0.2.1:1").Code)
			}
			assert.Equal(t, c.want, got)
		})
	}
}
