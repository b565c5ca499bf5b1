package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// echo serves "/admin/x/%2E%2E/public", "/admin/PUBLIC" and
// "/admin/public/" with the catch-all "/admin/*" (it routes the escaped
// path, case and trailing slash as they come), limited by "/admin/" to 1
// an hour; their variants name "/admin/public" (1000). Before, 3 of 3
// reached the admin handler; now the variant's route is charged with the
// template's: 1.
func TestAttackVariantLooserThanTheCatchAll(t *testing.T) {
	for _, path := range []string{"/admin/x/%2E%2E/public", "/admin/PUBLIC", "/admin/public/"} {
		m := selectOn(t, quota{"/admin/", 1}, quota{"/admin/public", 1000})
		hits := 0
		e := echo.New()
		e.Use(echolimit.Limit(m))
		e.GET("/admin/*", func(echo.Context) error { hits++; return nil })
		e.GET("/admin/public", ok)
		codes := thrice(e, http.MethodGet, path)
		assert.Equal(t, []int{200, 429, 429}, codes, path)
		assert.Equal(t, 1, hits, path)
	}
}
