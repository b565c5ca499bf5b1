package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chi names its mount point "/b" by one template whether the path is "/b"
// or "/b/", and serves both with the sub-router's "/" route. A request
// the adapter marks so (routepath.ServeVariants) is charged on the route
// a variant of its path names too, all or nothing: "GET /b" on "/{id}"
// (1000 an hour, the path's) and "/b/" (1 an hour, the variant's). An
// unmarked request keeps the path's route alone.
func TestRoutesChargesTheVariantAnAdapterMarks(t *testing.T) {
	for _, marked := range []bool{false, true} {
		clk := newClock()
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("/b/", limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})))
		require.NoError(t, rt.Add("/{id}", limiter(t, clk, core.FixedWindow{Quota: 1000, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{Key: func(*http.Request) (string, error) { return "k", nil }})
		require.NoError(t, err)
		var codes []int
		for range 3 {
			r := httptest.NewRequest(http.MethodGet, "/b", nil)
			if marked {
				r = routepath.ServeVariants(r)
			}
			w := httptest.NewRecorder()
			if _, ok := m.Begin(w, r, "/b"); ok {
				codes = append(codes, http.StatusOK)
			} else {
				codes = append(codes, w.Code)
			}
		}
		want := []int{200, 200, 200}
		if marked {
			want = []int{200, 429, 429}
		}
		assert.Equal(t, want, codes, "marked %v", marked)
	}
}
