package core_test

import (
	"fmt"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
)

// checkValidation asserts that a validates, and a policy of it builds, when
// ok; otherwise that both fail with an error wrapping ErrInvalidConfig that
// names the algorithm's type.
func checkValidation(t *testing.T, a core.Algorithm, ok bool, msgs ...any) {
	t.Helper()
	err := a.Validate()
	_, perr := core.NewPolicy("p", core.Limit{Algorithm: a})
	if ok {
		assert.NoError(t, err, msgs...)
		assert.NoError(t, perr, msgs...)
		return
	}
	assert.ErrorIs(t, err, core.ErrInvalidConfig, msgs...)
	assert.ErrorContains(t, err, fmt.Sprintf("%T", a)[len("core."):], msgs...)
	assert.ErrorIs(t, perr, core.ErrInvalidConfig, msgs...)
}
