package chilimit_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chi serves "/b" and "/b/" with the sub-router of r.Route("/b", …) (its
// "/*"), never with the root's "/{id}", which ServeMux would match "/b"
// to: the route of "/{id}" (1 an hour, one bucket for every client) was
// charged too, so that anyone's requests to "/b" spent everyone's "/{id}"
// budget: GET /b, /b/, /api/b, /api/b/ (the same under a mount) each ran 1
// of 3 on "/b/*"'s 1000, with LimitMux, Limit in the root's Use and Limit
// in the sub-router's. Only a route the router's own routes do not hold
// (a mounted handler's: TestAttackRouteUnderAMountedHandlerCharged) is
// now charged past the catch-all, and a route of the router's own only
// where the router routes the path (or the variant a rewriting middleware
// routes) to it: 3 of 3, and "/{id}" keeps its budget.
func TestAttackMountPathNotChargedOnARouteChiDoesNotServe(t *testing.T) {
	t.Parallel()
	for mode := range 3 {
		for _, path := range []string{"/b", "/b/", "/api/b", "/api/b/"} {
			rt := middleware.NewRoutes(nil)
			require.NoError(t, rt.Add("/{id}", fixed(t, 1)))
			require.NoError(t, rt.Add("/api/{id}", fixed(t, 1)))
			require.NoError(t, rt.Add("/b/*", fixed(t, 1000)))
			require.NoError(t, rt.Add("/api/b/*", fixed(t, 1000)))
			m, err := middleware.NewSelect(rt, middleware.Options{Key: func(*http.Request) (string, error) { return "all", nil }})
			require.NoError(t, err)
			inner, root := chi.NewRouter(), chi.NewRouter()
			switch mode {
			case 0:
				root.Use(chilimit.LimitMux(m, root))
			case 1:
				root.Use(chilimit.Limit(m))
			case 2:
				inner.Use(chilimit.Limit(m))
			}
			for _, r := range []chi.Router{inner, root} {
				r.Get("/{id}", func(http.ResponseWriter, *http.Request) {})
				r.Route("/b", func(s chi.Router) {
					s.HandleFunc("/*", func(http.ResponseWriter, *http.Request) {})
				})
			}
			root.Mount("/api", inner)
			assert.Equal(t, []int{200, 200, 200}, thrice(root, http.MethodGet, path), "mode %d %s", mode, path)
			if id := "/api/7"; mode < 2 || path[1] == 'a' {
				if path[1] == 'b' {
					id = "/7"
				}
				assert.Equal(t, []int{200, 429, 429}, thrice(root, http.MethodGet, id), "mode %d %s", mode, path)
			}
		}
	}
}

// A key reading the body puts it back in r.Body (as login's guard does):
// a request decided under a catch-all template, whose router's routes
// Routes is told of, is decided as the request itself, so that the
// handler reads the body the key put back, and the form the key parsed.
func TestCatchAllDecisionKeepsWhatTheKeyRead(t *testing.T) {
	t.Parallel()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/files/*", fixed(t, 1000)))
	m, err := middleware.NewSelect(rt, middleware.Options{Key: func(r *http.Request) (string, error) {
		b, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		return "body " + string(b), err
	}})
	require.NoError(t, err)
	var got string
	r := chi.NewRouter()
	r.With(chilimit.Limit(m)).Post("/files/*", func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
	})
	req := httptest.NewRequest(http.MethodPost, "/files/a", strings.NewReader("payload"))
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "payload", got)
}
