package login_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errDown = errors.New("store down")

// switchable is a memory store that fails every operation while down.
type switchable struct {
	mem  *core.MemoryStore
	down *atomic.Bool
}

func (s switchable) Bind(p *core.Policy) (store.Table, error) {
	t, err := s.mem.Bind(p)
	return switchTable{t, s.down}, err
}

type switchTable struct {
	t    store.Table
	down *atomic.Bool
}

func (t switchTable) Do(ctx context.Context, req store.Request) (store.Decision, error) {
	if t.down.Load() {
		return store.Decision{}, errDown
	}
	return t.t.Do(ctx, req)
}

// Options.OnError is given the login request with the errors of an
// attempt's outcome: a refund that fails after a success, a peek for
// OnLockout that fails after a failure. Before, both were reported with a
// nil *http.Request (documented so), and a logging hook reading
// r.URL.Path panicked while serving; now each reports its errors with the
// request's path.
func TestAttackOnErrorIsGivenTheRequest(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusUnauthorized} {
		mem, err := core.NewMemoryStore(core.MemoryOptions{})
		require.NoError(t, err)
		var down atomic.Bool
		var paths []string
		var errs []error
		g := newGuard(t, coretest.NewClock(t0), login.Options{
			Store:     switchable{mem, &down},
			Account:   core.Backoff{Free: 5, Base: time.Hour},
			OnLockout: func(string, time.Duration) {},
			OnError: func(r *http.Request, err error) {
				paths = append(paths, r.URL.Path) // what a logging hook does
				errs = append(errs, err)
			},
		})
		h := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			down.Store(true) // the store fails once the attempt is counted
			w.WriteHeader(status)
		}))
		require.NotPanics(t, func() { serve(h, formRequest("alice", "x", "192.0.2.1:1")) }, status)
		require.NotEmpty(t, errs, status)
		for i, err := range errs {
			assert.ErrorIs(t, err, errDown, status)
			assert.Equal(t, "/login", paths[i], status)
		}
	}
}
