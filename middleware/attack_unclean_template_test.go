package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A router serves "/admin/./public" as it comes with its catch-all
// "/admin/*" (chi, gin, echo do not clean paths); ServeMux would clean it
// to "/admin/public". Given the catch-all's template, Routes matched the
// path as ServeMux cleans it and charged "/admin/public" alone, whatever
// limits the catch-all's handler the request reaches. The cleaned path is
// now a variant: charged with the template's route, all or nothing. So
// for a catch-all route written as the template ("GET /files/*"): a
// variant naming a route of its own is charged with it.
func TestAttackUncleanPathUnderACatchAllTemplate(t *testing.T) {
	admin, public, files, special := &charges{}, &charges{}, &charges{}, &charges{}
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/admin/", admin))
	require.NoError(t, rt.Add("/admin/public", public))
	require.NoError(t, rt.Add("GET /files/*", files))
	require.NoError(t, rt.Add("GET /files/special", special))
	for _, c := range []struct{ path, template string }{
		{"/admin/./public", "/admin/*"}, {"/admin//public", "/admin/*"}, {"/admin/x/../public", "/admin/*p"},
		{"/files/./special", "/files/*"}, {"/files/SPECIAL", "/files/*"}, {"/files/special/", "/files/*"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL.Path = c.path
		l, _, err := rt.Select(r, c.template)
		require.NoError(t, err)
		p, ok := l.(*both.Pair)
		require.True(t, ok, "%s by %s: %T, one route", c.path, c.template, l)
		var got []middleware.Limiter
		for _, pt := range p.Parts() {
			got = append(got, pt.Lim)
		}
		if c.template == "/files/*" {
			assert.ElementsMatch(t, []middleware.Limiter{files, special}, got, c.path)
		} else {
			assert.ElementsMatch(t, []middleware.Limiter{admin, public}, got, c.path)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/files/a/b", nil)
	l, _, err := rt.Select(r, "/files/*")
	require.NoError(t, err)
	assert.Equal(t, files, l, "a path no variant moves: the catch-all's route alone")
}
