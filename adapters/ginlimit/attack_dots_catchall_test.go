package ginlimit_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// gin serves "/admin/./public", "/admin//public" and "/admin/x/../public"
// as they come with its catch-all "/admin/*path" (1 an hour); ServeMux
// would clean them to "/admin/public" (1,000), and Routes, given the
// catch-all's template, counted them there alone: 3 of 3 reached the
// catch-all's handler. Now charged on both routes: 1 of 3.
func TestAttackDotSegmentsPastTheCatchAll(t *testing.T) {
	for _, path := range []string{"/admin/./public", "/admin//public", "/admin/x/../public"} {
		codes, hits := underAdminCatchAll(t, path)
		assert.Equal(t, []int{200, 429, 429}, codes, path)
		assert.Equal(t, 1, hits, path)
	}
}
