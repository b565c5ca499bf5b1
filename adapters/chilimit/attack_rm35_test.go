package chilimit_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One Middleware in the root's Use and inline on a route, keyed by a
// field of the body that the key reads and puts back (r.Body =
// io.NopCloser(bytes.NewReader(b)), as a handler must find it). The
// outer use's snapshot of the request was taken before the key was run
// again for its charge (chargeOf), which put another body in the request
// passed on: the inner use met a body other than the snapshot's and
// charged the request again ("/x" 2 an hour: 1 of 3 ran).
func TestAttackMountedTwiceBodyRestoringKeyChargedOnce(t *testing.T) {
	t.Parallel()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/x", fixed(t, 2)))
	m, err := middleware.NewSelect(rt, middleware.Options{Key: func(r *http.Request) (string, error) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return "", err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		return "user " + string(b), nil
	}})
	require.NoError(t, err)
	root := chi.NewRouter()
	root.Use(chilimit.Limit(m))
	runs := 0
	root.With(chilimit.Limit(m)).Post("/x", func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		assert.Equal(t, "alice", string(b))
		runs++
	})
	for range 3 {
		req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader("alice"))
		root.ServeHTTP(httptest.NewRecorder(), req)
	}
	assert.Equal(t, 2, runs)
}

// uncomparableLimiter is a Limiter of a comparable type holding a value
// that is not (== panics on it): a user's limiter by value.
type uncomparableLimiter struct {
	l    *core.Limiter
	tags any
}

func (u uncomparableLimiter) AllowN(ctx context.Context, key string, cost int64) (core.Result, error) {
	return u.l.AllowN(ctx, key, cost)
}

func (u uncomparableLimiter) Refund(ctx context.Context, key string, taken core.Result) (core.Result, error) {
	return u.l.Refund(ctx, key, taken)
}

// One Middleware of one limiter (middleware.New), in the root's Use and
// inline on a route: the limiter, a value == cannot compare, was taken
// for another limiter at the inner use, which charged the request again
// (2 an hour: 1 of 3 ran). Every request of every route the Middleware
// meets twice pays twice.
func TestAttackMountedTwiceUncomparableLimiterChargedOnce(t *testing.T) {
	t.Parallel()
	m, err := middleware.New(uncomparableLimiter{l: fixed(t, 2), tags: []string{"a"}}, middleware.Options{})
	require.NoError(t, err)
	root := chi.NewRouter()
	root.Use(chilimit.Limit(m))
	runs := 0
	root.With(chilimit.Limit(m)).Get("/x", func(http.ResponseWriter, *http.Request) { runs++ })
	for range 3 {
		root.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	}
	assert.Equal(t, 2, runs)
}

// fixedSelector is a user's Selector picking one limiter for every request.
// One Middleware in the root's Use and inline on one route: its key (a
// token verified, a tenant looked up) ran again for the charge of every
// decision of every route (chargeOf in withDecision), 2 runs for a
// request to a route the inner use never meets (1 before b8cfe88), 3 for
// one it meets (the outer's decision, its charge, the inner's charge).
// What the outer use charged is known to its decision: the key need run
// once for it, and once for the inner use's.
func TestAttackMountedTwiceKeyRunsOncePerUse(t *testing.T) {
	t.Parallel()
	runs := 0
	m, err := middleware.New(fixed(t, 100), middleware.Options{Key: func(r *http.Request) (string, error) {
		runs++
		return "client " + r.RemoteAddr, nil
	}})
	require.NoError(t, err)
	root := chi.NewRouter()
	root.Use(chilimit.Limit(m))
	h := func(http.ResponseWriter, *http.Request) {}
	root.Get("/outer", h)
	root.With(chilimit.Limit(m)).Get("/inner", h)
	for path, want := range map[string]int{"/outer": 1, "/inner": 2} {
		runs = 0
		root.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, want, runs, path)
	}
}
