package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// It guards against a narrowing of the methods that was withdrawn: the
// adapters marked "-" the methods a router routes the path by to another
// route, and each review of the marks found a handler they let through
// uncharged; the marks are gone, and this request is charged again.
//
// A limit keyed by the route (keyfunc.Route reads the pattern the adapter
// sets, the methods reaching the handler: "CONNECT,DELETE,… /api/*"), 2
// an hour, on r.Handle("/api/*", h) beside routes of POST, PUT and DELETE
// at "/api/a", "/api/b", "/api/c": the adapter marks a method "-" where
// chi routes the request's path by it to another route, so that a GET to
// each of the four paths set another pattern, the key of another bucket:
// 8 of 8 GETs reached h, where 2 ran before the methods were marked. The
// key and the hooks now see the pattern without the marks, which only
// Routes reads: 2 of 8.
func TestAttackMarkedMethodsDoNotSplitARouteKey(t *testing.T) {
	t.Parallel()
	m, err := middleware.New(fixed(t, 2), middleware.Options{Key: keyfunc.Route})
	require.NoError(t, err)
	r := chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r))
	r.Handle("/api/*", http.HandlerFunc(ok))
	r.Post("/api/a", func(http.ResponseWriter, *http.Request) {})
	r.Put("/api/b", func(http.ResponseWriter, *http.Request) {})
	r.Delete("/api/c", func(http.ResponseWriter, *http.Request) {})
	var codes []int
	for _, p := range []string{"/api/a", "/api/a", "/api/b", "/api/b", "/api/c", "/api/c", "/api/z", "/api/z"} {
		codes = append(codes, from(r, http.MethodGet, p, "192.0.2.1:1"))
	}
	assert.Equal(t, []int{200, 200, 429, 429, 429, 429, 429, 429}, codes)
}
