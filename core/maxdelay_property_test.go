package core_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMaxDelayHonestProperty: under WithMaxDelay, every denial's
// RetryAfter is exact (a retry then is admitted within the delay, one
// 1 ns earlier is not) and every admission's Remaining is admitted at
// once, on random schedules over shaping policies (see
// coretest.MaxDelayHonest). Before, the first schedule on a LeakyBucket
// 1/s, capacity 4, was refused at its RetryAfter of 1.44 s.
func TestMaxDelayHonestProperty(t *testing.T) {
	t.Parallel()
	for _, p := range coretest.MaxDelayPolicies() {
		denials, admissions := 0, 0
		for seed := range uint64(4) {
			ms, err := core.NewMemoryStore(core.MemoryOptions{})
			require.NoError(t, err)
			d, a := coretest.MaxDelayHonest(t, p, ms, seed, 30, 1)
			denials, admissions = denials+d, admissions+a
		}
		assert.Positive(t, denials, p.Name())
		assert.Positive(t, admissions, p.Name())
	}
}
