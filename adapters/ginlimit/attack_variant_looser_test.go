package ginlimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gin serves "/admin/x/%2E%2E/public" (decoded, not cleaned),
// "/admin/PUBLIC" and "/admin/public/" with the catch-all "/admin/*path",
// limited by "/admin/" to 1 an hour; their variants name "/admin/public"
// (1000). Before, 3 of 3 reached the admin handler; now the variant's
// route is charged with the template's: 1.
func TestAttackVariantLooserThanTheCatchAll(t *testing.T) {
	for _, path := range []string{"/admin/x/%2E%2E/public", "/admin/PUBLIC", "/admin/public/"} {
		codes, hits := underAdminCatchAll(t, path)
		assert.Equal(t, []int{200, 429, 429}, codes, path)
		assert.Equal(t, 1, hits, path)
	}
}

// underAdminCatchAll sends path 3 times to an engine whose catch-all
// "/admin/*path" is limited by the route "/admin/" (1 an hour), beside a
// route "/admin/public" (1,000), and returns the codes and how many
// reached the catch-all's handler.
func underAdminCatchAll(t *testing.T, path string) (codes []int, hits int) {
	t.Helper()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/admin/", fixed(t, 1)))
	require.NoError(t, rt.Add("/admin/public", fixed(t, 1000)))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	engine := gin.New()
	engine.RedirectTrailingSlash = false
	engine.Use(ginlimit.Limit(m, engine))
	engine.GET("/admin/*path", func(*gin.Context) { hits++ })
	for range 3 {
		codes = append(codes, from(engine, http.MethodGet, path, "192.0.2.1:1"))
	}
	return codes, hits
}
