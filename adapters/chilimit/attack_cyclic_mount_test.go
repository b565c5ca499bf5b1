package chilimit_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A router mounted inside a router it mounts (r.Mount("/x", sub);
// sub.Mount("/y", r)) routes every request in chi alone, but chi.Walk,
// which Limit and LimitMux read the routes with at the first request,
// recursed without end: the first request grew the stack until the
// process died (a fatal stack overflow, no recover). Now the walk stops at
// the cycle and the request panics with ErrInvalidConfig, a recoverable
// error naming the mount, before any handler runs.
func TestAttackCyclicMountFailsTheRequestNotTheProcess(t *testing.T) {
	t.Parallel()
	for _, inline := range []bool{false, true} {
		m := selectOn(t, quota{"GET /x/login", 1})
		hits := 0
		r := chi.NewRouter()
		if !inline {
			r.Use(chilimit.LimitMux(m, r))
		}
		sub := chi.NewRouter()
		var routes chi.Router = sub
		if inline {
			routes = sub.With(chilimit.Limit(m))
		}
		routes.Get("/login", func(http.ResponseWriter, *http.Request) { hits++ })
		r.Mount("/x", sub)
		sub.Mount("/y", r)
		for range 2 {
			v := func() (v any) {
				defer func() { v = recover() }()
				from(r, http.MethodGet, "/x/login", "192.0.2.1:1")
				return nil
			}()
			err, ok := v.(error)
			require.True(t, ok, "inline %v: %v", inline, v)
			assert.True(t, errors.Is(err, core.ErrInvalidConfig), "inline %v: %v", inline, err)
		}
		assert.Zero(t, hits, "inline %v", inline)
	}
}
