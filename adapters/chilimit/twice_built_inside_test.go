package chilimit_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// builtInside returns a router limited with lim in its Use whose
// "/api/*" handler builds, on each request or once at the first, a
// router limited with lim too, and serves the request with it, after
// between (nil for nothing).
func builtInside(lim func(http.Handler) http.Handler, once bool, between func(*http.Request)) http.Handler {
	build := func() http.Handler {
		in := chi.NewRouter()
		in.Use(lim)
		in.Get("/api/x", func(http.ResponseWriter, *http.Request) {})
		return in
	}
	var (
		o   sync.Once
		got http.Handler
	)
	r := chi.NewRouter()
	r.Use(lim)
	r.HandleFunc("/api/*", func(w http.ResponseWriter, req *http.Request) {
		var in http.Handler
		if once {
			o.Do(func() { got = build() })
			in = got
		} else {
			in = build()
		}
		if between != nil {
			between(req)
		}
		in.ServeHTTP(w, req)
	})
	return r
}

// A router built inside a request (by a handler serving the request with
// it, on each request or once at the first) met a Middleware its root
// had decided the request with when the Middleware had no other use: the
// root's use told the handlers inside nothing, and the new use charged
// the request again: 5 requests at 4 an hour, the 4th refused. The root's
// use now holds the request it is serving, and a use wrapped meanwhile
// takes its decision for its own when it charges the same: the 5th
// refused. By the default key (the client IP) and by a key of the
// application's.
func TestTwiceRouterBuiltInsideChargesOnce(t *testing.T) {
	t.Parallel()
	keys := map[string]middleware.Options{
		"ip":  {},
		"own": {Key: func(r *http.Request) (string, error) { return "client " + r.RemoteAddr, nil }},
	}
	for name, opts := range keys {
		for _, once := range []bool{false, true} {
			rt := middleware.NewRoutes(nil)
			require.NoError(t, rt.Add("/api/*", fixed(t, 4)))
			m, err := middleware.NewSelect(rt, opts)
			require.NoError(t, err)
			r := builtInside(chilimit.Limit(m), once, nil)
			var codes []int
			for range 5 {
				codes = append(codes, from(r, http.MethodGet, "/api/x", "192.0.2.1:1"))
			}
			assert.Equal(t, []int{200, 200, 200, 200, 429}, codes, "%s, once %v", name, once)
		}
	}
}

// A request changed in place between the root's use and a router built
// inside the request (a header its key reads normalised) is charged
// again by the new use, by the key it makes: 4 requests of one user spelt
// 4 ways, "alice" 2 an hour, 2 of 4.
func TestTwiceRouterBuiltInsideChangedInPlaceIsCharged(t *testing.T) {
	t.Parallel()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/api/*", fixed(t, 2)))
	m, err := middleware.NewSelect(rt, middleware.Options{Key: func(r *http.Request) (string, error) {
		return "user " + r.Header.Get("X-User"), nil
	}})
	require.NoError(t, err)
	r := builtInside(chilimit.Limit(m), true, func(r *http.Request) {
		r.Header.Set("X-User", strings.ToLower(r.Header.Get("X-User")))
	})
	var codes []int
	for _, user := range []string{"Alice", "ALICE", "aLice", "alIce"} {
		req := httptest.NewRequest(http.MethodGet, "/api/x", nil)
		req.Header.Set("X-User", user)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		codes = append(codes, w.Code)
	}
	assert.Equal(t, []int{200, 200, 429, 429}, codes)
}
