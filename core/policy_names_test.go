package core_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewPolicyUnnamedLimitsSayWhatToDo: two limits left unnamed
// (ParsePolicy names them after their periods; NewPolicy does not) are
// refused with an error that says to name them, not with a duplicate
// name "".
func TestNewPolicyUnnamedLimitsSayWhatToDo(t *testing.T) {
	_, err := core.NewPolicy("api",
		core.Limit{Algorithm: core.GCRA{Rate: core.PerSecond(10)}},
		core.Limit{Algorithm: core.FixedWindow{Quota: 1000, Window: time.Hour}})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.EqualError(t, err, `core: policy "api": limits 1 and 2 have no name: name each limit of a policy of several (Limit.Name, such as "minute" and "day"): invalid rate limit configuration`)

	_, err = core.NewPolicy("api",
		core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerSecond(10)}},
		core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerSecond(1)}})
	assert.EqualError(t, err, `core: policy "api": duplicate limit name "a": invalid rate limit configuration`)
}
