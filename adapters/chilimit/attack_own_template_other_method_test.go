package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// A route of a ServeMux mounted at chi's "/legacy/*" is charged by its own
// limit (1 an hour, "/legacy/*" 1000) though chi lists its template too:
//   - "GET /legacy/login" of chi's own (a new login page), the mounted
//     "POST /legacy/login" (the legacy one): Reaches took the template for
//     chi's own whatever the method (Lookup lists a template, not a
//     template and method), saw chi route POST /legacy/login to
//     "/legacy/*", and dropped the route;
//   - chi's own "GET /legacy/login/", which chi lists under "/legacy/login"
//     (its RoutePattern, without the slash), the mounted "/legacy/login"
//     served for GET /legacy/login by the mount: dropped the same way.
//
// Each ran 3 of 3 with the withdrawn catch-all fix (cb38cf9); kept as
// guards.
func TestAttackMountedRouteAtAnOwnTemplateCharged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, policy, mounted, own, method string
	}{
		{"own template of another method", "POST /legacy/login", "POST /legacy/login", "/legacy/login", http.MethodPost},
		{"own slash template", "/legacy/login", "/legacy/login", "/legacy/login/", http.MethodGet},
	} {
		for mode := range 3 {
			m := selectOn(t, quota{tc.policy, 1}, quota{"/legacy/*", 1000})
			hits := 0
			legacy := http.NewServeMux()
			legacy.HandleFunc(tc.mounted, func(http.ResponseWriter, *http.Request) { hits++ })
			r := chi.NewRouter()
			switch mode {
			case 0:
				r.Use(chilimit.LimitMux(m, r))
			case 1:
				r.Use(chilimit.Limit(m))
			}
			r.Get(tc.own, func(http.ResponseWriter, *http.Request) {})
			if mode == 2 {
				r.With(chilimit.Limit(m)).Mount("/legacy", legacy)
			} else {
				r.Mount("/legacy", legacy)
			}
			codes := thrice(r, tc.method, "/legacy/login")
			assert.Equal(t, []int{200, 429, 429}, codes, "%s, mode %d", tc.name, mode)
			assert.Equal(t, 1, hits, "%s, mode %d", tc.name, mode)
		}
	}
}
