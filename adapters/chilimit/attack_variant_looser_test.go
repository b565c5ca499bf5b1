package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// chi serves "/admin/x/%2E%2E/public", "/admin/PUBLIC" and "/admin/public/"
// with the catch-all "/admin/*" (it routes the escaped path, case and
// trailing slash as they come), limited by "/admin/" to 1 an hour; their
// variants name "/admin/public" (1000). Before, 3 of 3 reached the admin
// handler; now the variant's route is charged with the template's: 1.
func TestAttackVariantLooserThanTheCatchAll(t *testing.T) {
	for _, path := range []string{"/admin/x/%2E%2E/public", "/admin/PUBLIC", "/admin/public/"} {
		codes, hits := underAdminCatchAll(t, path, true)
		assert.Equal(t, []int{200, 429, 429}, codes, path)
		assert.Equal(t, 1, hits, path)
	}
}

// underAdminCatchAll sends path 3 times to a router whose catch-all
// "/admin/*" is limited by the route "/admin/" (1 an hour), beside a route
// "/admin/public" (1,000), with Limit in the root router's Use (inUse) or
// on the catch-all's route, and returns the codes and how many reached the
// catch-all's handler.
func underAdminCatchAll(t *testing.T, path string, inUse bool) (codes []int, hits int) {
	t.Helper()
	m := selectOn(t, quota{"/admin/", 1}, quota{"/admin/public", 1000})
	r := chi.NewRouter()
	h := func(http.ResponseWriter, *http.Request) { hits++ }
	if inUse {
		r.Use(chilimit.Limit(m))
		r.Get("/admin/*", h)
	} else {
		r.With(chilimit.Limit(m)).Get("/admin/*", h)
	}
	r.Get("/admin/public", ok)
	codes = thrice(r, http.MethodGet, path)
	return codes, hits
}

// The same with LimitMux, which resolves the route before chi routes: the
// path reaching only the catch-all "/admin/*", the variant finding
// "/admin/public" replaced it, so that "/admin/PUBLIC", "/admin/public/"
// and "/admin/./public" reached the catch-all's handler limited by
// "/admin/public" alone: 3 of 3 (1,000 an hour, not 1). A variant past a
// catch-all now leaves the request to Routes, which charges both the
// variant's route and the catch-all's: 1 of 3. With a rewriting middleware
// after LimitMux (StripSlashes), which routes the variant to the route's
// own handler, that route still limits it (TestLimitMuxVariantPastCatchAll).
func TestAttackLimitMuxVariantLooserThanTheCatchAll(t *testing.T) {
	for _, path := range []string{"/admin/x/%2E%2E/public", "/admin/PUBLIC", "/admin/public/", "/admin/./public"} {
		m := selectOn(t, quota{"/admin/", 1}, quota{"/admin/public", 1000})
		hits := 0
		r := chi.NewRouter()
		r.Use(chilimit.LimitMux(m, r))
		r.Get("/admin/*", func(http.ResponseWriter, *http.Request) { hits++ })
		r.Get("/admin/public", ok)
		codes := thrice(r, http.MethodGet, path)
		assert.Equal(t, []int{200, 429, 429}, codes, path)
		assert.Equal(t, 1, hits, path)
	}
}
