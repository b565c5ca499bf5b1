package login_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackNilNextRefusedAtSetup: Guard.Handler(nil), or a typed nil
// next, is refused when the handler chain is built, with an error wrapping
// core.ErrInvalidConfig that says what to give instead. Before, the chain
// built fine and every login POST panicked on a nil pointer.
func TestAttackNilNextRefusedAtSetup(t *testing.T) {
	g, err := login.New(login.Options{})
	require.NoError(t, err)
	for name, next := range map[string]http.Handler{
		"nil": nil, "nil *ServeMux": (*http.ServeMux)(nil), "nil HandlerFunc": http.HandlerFunc(nil),
	} {
		var h http.Handler
		func() {
			defer func() {
				err, _ := recover().(error)
				require.ErrorIs(t, err, core.ErrInvalidConfig, name)
				assert.ErrorContains(t, err, "http.DefaultServeMux", name)
			}()
			h = g.Handler(next)
		}()
		if h == nil {
			continue
		}
		assert.NotPanics(t, func() {
			serve(h, formRequest("alice", "guess", "192.0.2.1:1"))
		}, "%s panicked at a request", name)
	}
}
