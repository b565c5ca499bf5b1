package ginlimit_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackMidSegmentParamBeforeTheEngine: gin serves "/v2/x", "/v/x"
// and "/v%32/x" with "/v:version/x", a parameter after text in a segment,
// which ServeMux reads as a literal. With the limiter mounted before the
// engine (net/http middleware around it, no template), each request went
// to the default: 3 of 3 past a route limit of 1 an hour. Mounted inside,
// the template finds the route. Now 1 of 3 both ways.
func TestAttackMidSegmentParamBeforeTheEngine(t *testing.T) {
	for _, inside := range []bool{false, true} {
		for _, path := range []string{"/v2/x", "/v/x", "/v%32/x", "/vab/x"} {
			rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
			require.NoError(t, rt.Add("GET /v:version/x", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
			m, err := middleware.NewSelect(rt, middleware.Options{})
			require.NoError(t, err)
			hits := 0
			engine := gin.New()
			if inside {
				engine.Use(ginlimit.Limit(m, engine))
			}
			engine.GET("/v:version/x", func(*gin.Context) { hits++ })
			h := m.Handler(engine)
			if inside {
				h = engine
			}
			var codes []int
			for range 3 {
				codes = append(codes, do(h, "GET", path, "192.0.2.1:1").Code)
			}
			assert.Equal(t, []int{200, 429, 429}, codes, "%s, inside %v", path, inside)
			assert.Equal(t, 1, hits, "%s, inside %v", path, inside)
		}
	}
}
