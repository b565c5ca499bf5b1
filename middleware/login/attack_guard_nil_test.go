package login_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackNilOrZeroGuard: a nil *Guard (login.New's error ignored) or a
// zero Guard is refused when the handler chain is built, with an error
// wrapping core.ErrInvalidConfig, and never panics at a request: Validate
// tells it, Handler panics at set-up, Start answers 500 and Begin returns
// the error. Before, Handler(nil) built fine and the first POST panicked
// (a nil pointer dereference); the zero Guard answered every POST 413
// and Begin panicked.
func TestAttackNilOrZeroGuard(t *testing.T) {
	for name, g := range map[string]*login.Guard{"nil": nil, "zero": {}} {
		require.ErrorIs(t, g.Validate(), core.ErrInvalidConfig, name)
		func() {
			defer func() {
				err, _ := recover().(error)
				assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
			}()
			g.Handler(&app{})
			t.Errorf("%s: Handler did not panic at set-up", name)
		}()
		require.NotPanics(t, func() {
			w := serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if a, ok := g.Start(w, r); ok {
					a.Succeeded()
					w.WriteHeader(http.StatusOK)
				}
			}), formRequest("alice", "guess", "192.0.2.1:1"))
			assert.Equal(t, http.StatusInternalServerError, w.Code, name)
		}, name)
		require.NotPanics(t, func() {
			a, err := g.Begin(context.Background(), "alice", formRequest("alice", "guess", "192.0.2.1:1"))
			assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
			assert.Nil(t, a, name)
		}, name)
	}
	g, err := login.New(login.Options{})
	require.NoError(t, err)
	require.NoError(t, g.Validate())
}
