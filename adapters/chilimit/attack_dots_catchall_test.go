package chilimit_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
		for _, inUse := range []bool{true, false} {
			codes, hits := underAdminCatchAll(t, path, inUse)
			assert.Equal(t, []int{200, 429, 429}, codes, "in Use %v: %s", inUse, path)
			assert.Equal(t, 1, hits, "in Use %v: %s", inUse, path)
		}
	}
}
