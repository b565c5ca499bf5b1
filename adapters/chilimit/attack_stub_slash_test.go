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

// chi routes "/{tenant}/" by the mount point's own "/{tenant}/" pattern
// to the sub-router, and its RoutePattern joins that to the sub-router's
// "/*" as "/{tenant}//*", which names no route. Limit inline on the
// catch-all charged that; beside another route under "/{tenant}/", a path
// ServeMux would clean ("/../", "//") was matched to no route by its path
// either, and reached the handler unlimited.
func TestAttackCatchAllBehindAMountPointsSlash(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/../", "//", "/acme/"} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("/{tenant}/login/x", fixed(t, 1000)))
		require.NoError(t, rt.Add("GET /{tenant}/*", fixed(t, 1)))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		r := chi.NewRouter()
		r.Route("/{tenant}", func(s chi.Router) {
			s.With(chilimit.Limit(m)).Get("/*", func(http.ResponseWriter, *http.Request) { hits++ })
		})
		var codes []int
		for range 3 {
			codes = append(codes, from(r, http.MethodGet, path, "192.0.2.1:1"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, path)
		assert.Equal(t, 1, hits, path)
	}
}
