package ginlimit_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quota38b is a route and its quota an hour.
type quota38b struct {
	pattern string
	n       int64
}

// rglob38bServe sends method path thrice from one client to a gin engine
// serving routes (one handler each, counting its hits), with the limiter
// of the table quotas (an hour each; the default 1000) around the engine
// or inside it (ginlimit.Limit), and returns the codes and the hits.
func rglob38bServe(t *testing.T, inside, removeExtraSlash bool, quotas []quota38b, routes []string, method, path string) ([]int, map[string]int) {
	t.Helper()
	rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
	for _, q := range quotas {
		require.NoError(t, rt.Add(q.pattern, limiter(t, core.FixedWindow{Quota: q.n, Window: time.Hour})))
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	hits := map[string]int{}
	engine := gin.New()
	engine.RemoveExtraSlash = removeExtraSlash
	if inside {
		engine.Use(ginlimit.Limit(m, engine))
	}
	for _, route := range routes {
		engine.Handle(method, route, func(*gin.Context) { hits[route]++ })
	}
	h := m.Handler(engine)
	if inside {
		h = engine
	}
	var codes []int
	for range 3 {
		codes = append(codes, do(h, method, path, "192.0.2.1:1").Code)
	}
	return codes, hits
}

// TestAttackRglob38bCleanedPathsRoute: gin with RemoveExtraSlash serves
// "/v1/products/../login" by "/v:version/login" (1 an hour), cleaned.
// The limiter around the engine matched the path as it came to
// "/v:version/products/" (1000), whose longer text "outranked" the
// cleaned path's route, left uncharged: 3 of 3. Now 1 of 3 around the
// engine and inside it.
func TestAttackRglob38bCleanedPathsRoute(t *testing.T) {
	for _, inside := range []bool{false, true} {
		codes, hits := rglob38bServe(t, inside, true,
			[]quota38b{{"GET /v:version/products/", 1000}, {"GET /v:version/login", 1}},
			[]string{"/v:version/products/", "/v:version/login"}, "GET", "/v1/products/../login")
		assert.Equal(t, []int{200, 429, 429}, codes, "inside %v", inside)
		assert.Equal(t, map[string]int{"/v:version/login": 1}, hits, "inside %v", inside)
	}
}

// TestAttackRglob38bEscapedColon: gin serves "/v1/books:batchGet" by
// "/v1/books\:batchGet" (an escaped colon, a literal one; Google's custom
// methods), its FullPath "/v1/books:batchGet". The route written as gin
// registers it (1 an hour) was read as text "books\" then a parameter,
// and that template named no route: 3 of 3 around the engine and inside
// it. Now 1 of 3 both ways.
func TestAttackRglob38bEscapedColon(t *testing.T) {
	for _, inside := range []bool{false, true} {
		codes, hits := rglob38bServe(t, inside, false,
			[]quota38b{{`POST /v1/books\:batchGet`, 1}},
			[]string{`/v1/books\:batchGet`}, "POST", "/v1/books:batchGet")
		assert.Equal(t, []int{200, 429, 429}, codes, "inside %v", inside)
		assert.Equal(t, map[string]int{`/v1/books\:batchGet`: 1}, hits, "inside %v", inside)
	}
}

// TestAttackRglob38bEmptyEnd: gin serves "/ab" by "/a:y" (1 an hour)
// beside "/ab:x" (1000), whose parameter would be empty at the end of the
// path, which gin does not take. The longer text "outranked" the route
// gin serves, and the limiter around the engine charged "/ab:x" alone: 3
// of 3. Now 1 of 3, around the engine and inside it.
func TestAttackRglob38bEmptyEnd(t *testing.T) {
	for _, inside := range []bool{false, true} {
		codes, hits := rglob38bServe(t, inside, false,
			[]quota38b{{"GET /ab:x", 1000}, {"GET /a:y", 1}},
			[]string{"/ab:x", "/a:y"}, "GET", "/ab")
		assert.Equal(t, []int{200, 429, 429}, codes, "inside %v", inside)
		assert.Equal(t, map[string]int{"/a:y": 1}, hits, "inside %v", inside)
	}
}
