package login_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// New refuses typed-nil and zero essentials with an error wrapping
// core.ErrInvalidConfig (keyfunc.ErrInvalidOptions for the IP options)
// instead of panicking at the first attempt; nil fields take their
// documented defaults.
func TestNewRefusesNilAndZero(t *testing.T) {
	for name, opts := range map[string]login.Options{
		"typed nil store":     {Store: (*core.MemoryStore)(nil)},
		"zero store":          {Store: &core.MemoryStore{}},
		"typed nil clock":     {Clock: (*coretest.Clock)(nil)},
		"typed nil account":   {Account: (*core.Backoff)(nil)},
		"typed nil network":   {Network: (*core.GCRA)(nil)},
		"zero account":        {Account: core.Backoff{}},
		"negative body bound": {MaxBody: -1},
	} {
		_, err := login.New(opts)
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
	}
	_, err := login.New(login.Options{IP: keyfunc.IPOptions{TrustedHops: -1}})
	assert.Error(t, err)
	_, err = login.New(login.Options{})
	require.NoError(t, err)
}
