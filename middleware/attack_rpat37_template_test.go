package middleware_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRpat37TemplateServeMuxRefusesNotSwallowed: Routes registers a
// template in ServeMux's syntax (MuxPath) and, when that registration
// fails and MuxPath changed the pattern, went on without it, meaning a
// template that ServeMux matches like one added before ("/users/:id"
// after "/users/{id}"). But a pattern ServeMux refuses outright was
// swallowed so too: a '{' in the host (its check is left to ServeMux),
// "{$}" before the end, an unclosed brace, each beside a ":id" that
// MuxPath rewrote. Added without an error, each matched no request
// without a template (3 of 3 charged on the default). Now a pattern
// ServeMux refuses on its own is refused, and only a clash with a route
// added before is let through.
func TestAttackRpat37TemplateServeMuxRefusesNotSwallowed(t *testing.T) {
	for _, c := range []struct{ pat, host, path string }{
		{"sub{x}.example.com/x/:id", "sub1.example.com", "/x/1"},
		{"GET /users/:id/{$}/x", "h", "/users/1/x"},
		{"GET /users/:id/{name", "h", "/users/1/{name"},
	} {
		route, def := &charges{}, &charges{}
		rt := middleware.NewRoutes(def)
		err := rt.Add(c.pat, route)
		if err == nil {
			r := httptest.NewRequest("GET", c.path, nil)
			r.Host = c.host
			lim, _, serr := rt.Select(r, "")
			require.NoError(t, serr)
			_, _ = lim.AllowN(context.Background(), "k", 1)
			assert.Failf(t, "added", "%q: charged %d on the route, %d on the default", c.pat, route.n, def.n)
			continue
		}
		assert.ErrorIs(t, err, core.ErrInvalidConfig, c.pat)
	}
	// One route in two syntaxes still adds.
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /users/{id}", &charges{}))
	require.NoError(t, rt.Add("GET /users/:id", &charges{}))
}
