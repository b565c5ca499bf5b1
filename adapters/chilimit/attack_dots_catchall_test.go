package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chi serves "/admin/./public", "/admin//public" and "/admin/x/../public"
// as they come, with the catch-all "/admin/*" (1 an hour); ServeMux would
// clean them to "/admin/public" (1,000). Routes, given the catch-all's
// template (Limit after chi routes) or none (Limit in the root router's
// Use, before it routes), counted them on "/admin/public" alone: 3 of 3
// reached the catch-all's handler. A path ServeMux would clean is now a
// variant under a router's template, charged with the template's route,
// and Limit before routing gives Routes the route chi will serve: 1 of 3.
func TestAttackDotSegmentsPastTheCatchAll(t *testing.T) {
	for _, path := range []string{"/admin/./public", "/admin//public", "/admin/x/../public"} {
		for mode := range 2 {
			rt := middleware.NewRoutes(nil)
			require.NoError(t, rt.Add("/admin/", fixed(t, 1)))
			require.NoError(t, rt.Add("/admin/public", fixed(t, 1000)))
			m, err := middleware.NewSelect(rt, middleware.Options{})
			require.NoError(t, err)
			hits := 0
			r := chi.NewRouter()
			h := func(http.ResponseWriter, *http.Request) { hits++ }
			if mode == 0 {
				r.Use(chilimit.Limit(m))
				r.Get("/admin/*", h)
			} else {
				r.With(chilimit.Limit(m)).Get("/admin/*", h)
			}
			r.Get("/admin/public", ok)
			var codes []int
			for range 3 {
				codes = append(codes, from(r, http.MethodGet, path, "192.0.2.1:1"))
			}
			assert.Equal(t, []int{200, 429, 429}, codes, "mode %d %s", mode, path)
			assert.Equal(t, 1, hits, "mode %d %s", mode, path)
		}
	}
}
