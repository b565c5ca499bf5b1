package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
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
		m := selectOn(t, quota{"/{tenant}/login/x", 1000}, quota{"GET /{tenant}/*", 1})
		hits := 0
		r := chi.NewRouter()
		r.Route("/{tenant}", func(s chi.Router) {
			s.With(chilimit.Limit(m)).Get("/*", func(http.ResponseWriter, *http.Request) { hits++ })
		})
		codes := thrice(r, http.MethodGet, path)
		assert.Equal(t, []int{200, 429, 429}, codes, path)
		assert.Equal(t, 1, hits, path)
	}
}
