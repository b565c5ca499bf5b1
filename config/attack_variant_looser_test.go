package config_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A configuration's routes are matched as middleware.Routes matches them:
// a request the application's "/admin/" handler serves, whose path names
// the looser "/admin/public" once decoded and cleaned, case-folded or its
// trailing slash removed, is charged on the route of the handler too (or
// on the default, when no route holds it), all or nothing, in the same
// buckets as the requests the handler's own route counts. Before, 3 of 3
// reached the admin handler in each of the 9 cases, and none took from its
// route's bucket.
func TestAttackVariantLooserThanServedRoute(t *testing.T) {
	const pols = "policies: {strict: 1/hour, loose: 1000/hour}\n"
	for _, src := range []string{
		pols + "routes: [{pattern: /admin/, policy: strict}, {pattern: /admin/public, policy: loose}]\n",
		pols + "default: {policy: strict}\nroutes: [{pattern: /admin/public, policy: loose}]\n",
		pols + "default: {policy: loose}\nroutes: [{pattern: /admin/, policy: strict}, {pattern: GET /admin/public, policy: loose}]\n",
	} {
		for _, path := range []string{"/admin/x/%2E%2E/public", "/admin/PUBLIC", "/admin/public/"} {
			l := load(t, src, nil)
			hits := 0
			app := http.NewServeMux()
			app.HandleFunc("/admin/", func(http.ResponseWriter, *http.Request) { hits++ })
			c := client{h: l.Handler(app), remote: "192.0.2.1:1"}
			codes := []int{c.do("GET", path).Code, c.do("GET", path).Code, c.do("GET", path).Code}
			assert.Equal(t, []int{200, 429, 429}, codes, "%s%s", src, path)
			assert.Equal(t, 1, hits, "%s%s", src, path)
			assert.Equal(t, 429, c.do("GET", "/admin/y").Code, "the served route's own bucket: %s%s", src, path)
		}
	}
}
