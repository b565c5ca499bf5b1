package echolimit_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRglob38VariantMatchOutranksThePath: echo serves "/static/V1"
// and "/static//v1" by "/static*" (1 an hour) beside "/static/v:x"
// (1000): it routes the path as it comes, in its case, uncleaned. The
// limiter before echo (around it, in e.Pre) matched "/static/v:x" to a
// variant of the path ("/static/v1", lower case or cleaned), let it
// outrank "/static*", which the path itself matches, and charged the
// looser route alone: 3 of 3. Now 1 of 3.
func TestAttackRglob38VariantMatchOutranksThePath(t *testing.T) {
	for _, path := range []string{"/static/V1", "/static//v1"} {
		for _, mount := range []string{"around", "pre", "use"} {
			rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
			require.NoError(t, rt.Add("/static*", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
			require.NoError(t, rt.Add("GET /static/v:x", limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour})))
			m, err := middleware.NewSelect(rt, middleware.Options{})
			require.NoError(t, err)
			hits := map[string]int{}
			e := echo.New()
			switch mount {
			case "pre":
				e.Pre(echolimit.Limit(m))
			case "use":
				e.Use(echolimit.Limit(m))
			}
			e.GET("/static*", func(echo.Context) error { hits["any"]++; return nil })
			e.GET("/static/v:x", func(echo.Context) error { hits["param"]++; return nil })
			h := m.Handler(e)
			if mount != "around" {
				h = e
			}
			var codes []int
			for range 3 {
				codes = append(codes, do(h, "GET", path).Code)
			}
			assert.Equal(t, []int{200, 429, 429}, codes, "%s, %s", path, mount)
			assert.Equal(t, map[string]int{"any": 1}, hits, "%s, %s", path, mount)
		}
	}
}

// TestAttackRglob38CatchAllAfterTextRoutesFurther: echo's catch-all after
// text ("/legacy*") serves "/legacy/login" with a handler that routes
// further, a ServeMux serving "POST /legacy/login" (1 an hour; the
// catch-all's route 1000). Written "/legacy/*", the catch-all's requests
// are charged on the route the path names too; written "/legacy*", with
// Limit in e.Pre or e.Use, they were charged on the catch-all's alone:
// 3 of 3. Now 1 of 3 as for "/legacy/*".
func TestAttackRglob38CatchAllAfterTextRoutesFurther(t *testing.T) {
	for _, mount := range []string{"pre", "use"} {
		rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
		require.NoError(t, rt.Add("POST /legacy/login", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
		require.NoError(t, rt.Add("/legacy*", limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		mux := http.NewServeMux()
		mux.HandleFunc("POST /legacy/login", func(http.ResponseWriter, *http.Request) { hits++ })
		e := echo.New()
		if mount == "pre" {
			e.Pre(echolimit.Limit(m))
		} else {
			e.Use(echolimit.Limit(m))
		}
		e.Any("/legacy*", echo.WrapHandler(mux))
		var codes []int
		for range 3 {
			codes = append(codes, do(e, "POST", "/legacy/login").Code)
		}
		assert.Equal(t, []int{200, 429, 429}, codes, mount)
		assert.Equal(t, 1, hits, mount)
	}
}
