package chilimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Limit mounted with the root router's Use (a mistake the package
// documentation warns of) sees no route pattern: a route with a
// regular-expression parameter is still limited, matched by the request's
// path. Before, Routes refused the pattern ("bad wildcard name").
func TestAttackRootUseStillLimitsRegexpRoutes(t *testing.T) {
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /items/{id:[0-9]+}", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	r := chi.NewRouter()
	r.Use(chilimit.Limit(m))
	r.Get("/items/{id:[0-9]+}", ok)
	get := func(path string) int {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Code
	}
	assert.Equal(t, []int{200, 429}, []int{get("/items/1"), get("/items/2")})
}
