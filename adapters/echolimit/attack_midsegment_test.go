package echolimit_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackMidSegmentParamBeforeTheRouter: echo serves "/v2/x" with
// "/v:version/x" and "/static/a.css" or "/staticfoo" with "/static*", a
// parameter or catch-all after text in a segment, which ServeMux reads as
// a literal. With the limiter mounted before echo (net/http middleware
// around it, no template), each request went to the default: 3 of 3 past
// a route limit of 1 an hour. Now 1 of 3, as with Limit in e.Pre and
// e.Use.
func TestAttackMidSegmentParamBeforeTheRouter(t *testing.T) {
	for _, c := range []struct{ route, path string }{
		{"/v:version/x", "/v2/x"},
		{"/v:version/x", "/v/x"},
		{"/static*", "/static/a.css"},
		{"/static*", "/staticfoo"},
		{"/static*", "/static"},
	} {
		for _, mount := range []string{"around", "pre", "use"} {
			rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
			require.NoError(t, rt.Add("GET "+c.route, limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
			m, err := middleware.NewSelect(rt, middleware.Options{})
			require.NoError(t, err)
			hits := 0
			e := echo.New()
			switch mount {
			case "pre":
				e.Pre(echolimit.Limit(m))
			case "use":
				e.Use(echolimit.Limit(m))
			}
			e.GET(c.route, func(echo.Context) error { hits++; return nil })
			h := m.Handler(e)
			if mount != "around" {
				h = e
			}
			var codes []int
			for range 3 {
				codes = append(codes, do(h, "GET", c.path).Code)
			}
			assert.Equal(t, []int{200, 429, 429}, codes, "%s under %s, %s", c.path, c.route, mount)
			assert.Equal(t, 1, hits, "%s under %s, %s", c.path, c.route, mount)
		}
	}
}
