package chilimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One Middleware in the root's Use and inline on the route, keyed by the
// tenant of the path (chi.URLParam, or r.PathValue) or, before chi has
// routed, the client. chi routes the request in place between the two
// uses: its route context's URL params and r's path values are set on
// the very request the outer use passed on, whose context and fields
// decidedBefore compared unchanged. The inner use took the outer's
// decision (charged in the client's bucket) for its own, and the
// tenant's bucket ("/t/{tenant}/x" 2 an hour) was never charged: 4
// clients ran 4 of 4 on tenant a. The inner use now takes the outer's
// decision only when it charges the same buckets by the same cost (the
// key and cost told again): 2 of 4.
func TestAttackMountedTwiceKeyOfRoutingStateIsCharged(t *testing.T) {
	t.Parallel()
	for _, outer := range []string{"LimitMux", "Limit"} {
		for _, byPathValue := range []bool{false, true} {
			rt := middleware.NewRoutes(nil)
			require.NoError(t, rt.Add("/t/{tenant}/x", fixed(t, 2)))
			m, err := middleware.NewSelect(rt, middleware.Options{Key: func(r *http.Request) (string, error) {
				tenant := chi.URLParam(r, "tenant")
				if byPathValue {
					tenant = r.PathValue("tenant")
				}
				if tenant != "" {
					return "tenant " + tenant, nil
				}
				return "client " + r.RemoteAddr, nil
			}})
			require.NoError(t, err)
			root := chi.NewRouter()
			if outer == "LimitMux" {
				root.Use(chilimit.LimitMux(m, root))
			} else {
				root.Use(chilimit.Limit(m))
			}
			runs := 0
			root.With(chilimit.Limit(m)).Get("/t/{tenant}/x", func(http.ResponseWriter, *http.Request) { runs++ })
			for i := range 4 {
				req := httptest.NewRequest(http.MethodGet, "/t/a/x", nil)
				req.RemoteAddr = "192.0.2." + string(rune('1'+i)) + ":1234"
				root.ServeHTTP(httptest.NewRecorder(), req)
			}
			assert.Equal(t, 2, runs, "outer %s, path value %v", outer, byPathValue)
		}
	}
}
