package middleware_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackRglob38bVariantsRouteNotOutrankedByAnotherPath: a glob route
// that a variant of the path alone matches was not charged when a glob
// route the path as it came matches "outranked" it, though that route
// does not match the variant: a rewriting router serves the variant by
// the variant's route. chi's CleanPath and gin's RemoveExtraSlash serve
// "/v1/products/../login" by "/v{version}/login" (1 an hour), echo's
// Pre(RemoveTrailingSlash()) serves "/v2/items/" by "/v:version/items";
// the limiter before the router charged the looser route the path itself
// matches ("/v{version}/products/", "/v:version/items/", 1000) and the
// default: 3 of 3. Now 1 of 3.
func TestAttackRglob38bVariantsRouteNotOutrankedByAnotherPath(t *testing.T) {
	for _, c := range []rglob38Case{
		{name: "chi clean", routes: []quota{{"GET /v{version}/products/", 1000}, {"GET /v{version}/login", 1}}, method: "GET", path: "/v1/products/../login"},
		{name: "gin clean", routes: []quota{{"GET /v:version/products/", 1000}, {"GET /v:version/login", 1}}, method: "GET", path: "/v1/products/../login"},
		{name: "echo strip", routes: []quota{{"GET /v:version/items/", 1000}, {"GET /v:version/items", 1}}, method: "GET", path: "/v2/items/"},
	} {
		assert.Equal(t, 1, admitted38(t, c), c.name)
	}
}
