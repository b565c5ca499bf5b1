package middleware_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ownContextRoutes wraps Routes, giving it the request under a context
// of its own: derived from the request's (derive), or not.
type ownContextRoutes struct {
	rt     *middleware.Routes
	derive bool
}

type tenantCtxKey struct{}

func (s ownContextRoutes) Select(r *http.Request, route string) (middleware.Limiter, string, error) {
	ctx := context.Background()
	if s.derive {
		ctx = r.Context()
	}
	ctx = context.WithValue(ctx, tenantCtxKey{}, r.Header.Get("X-Tenant"))
	l, scope, err := s.rt.Select(r.WithContext(ctx), route)
	return l, "tenant:" + r.Header.Get("X-Tenant") + "/" + scope, err
}

// A Selector wrapping Routes that gives Routes.Select a request under a
// context derived from the request's own is asked again for each route
// of a variant spelling, and counts it in that route's bucket. One that
// gives it a context of its own (context.Background()) cannot be told
// which route it is asked for: a variant spelling is refused (fails
// closed, never unlimited), its error saying why, while the canonical
// spellings are served.
func TestRoutesSelectUnderTheSelectorsOwnContext(t *testing.T) {
	for _, derive := range []bool{true, false} {
		m, err := middleware.NewSelect(ownContextRoutes{sharedAPIRoutes(t), derive}, middleware.Options{
			OnError: func(_ *http.Request, err error) {
				assert.ErrorIs(t, err, core.ErrInvalidConfig)
				assert.ErrorContains(t, err, "context")
			},
		})
		require.NoError(t, err)
		h := apiApp(m)
		a := map[string]string{"X-Tenant": "a"}
		assert.Equal(t, 200, serve(h, "POST", "/api/login", "192.0.2.1:1", a))
		if derive {
			spellingsShareTheBucket(t, apiApp(mustSelect(t, ownContextRoutes{sharedAPIRoutes(t), true})), "X-Tenant")
			continue
		}
		code := serve(h, "POST", "/api/login/", "192.0.2.1:1", a)
		assert.GreaterOrEqual(t, code, 400, "refused, not served")
	}
}

func mustSelect(t *testing.T, sel middleware.Selector) *middleware.Middleware {
	t.Helper()
	m, err := middleware.NewSelect(sel, middleware.Options{})
	require.NoError(t, err)
	return m
}
