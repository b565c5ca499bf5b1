package core_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
)

// The emission interval is rounded up, so the rate granted never exceeds
// the one asked for; defaults fill only zero fields.
func TestRateIntervalAndDefaults(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 20*time.Second, core.PerMinute(3).Interval())
	assert.Equal(t, 142857143*time.Nanosecond, core.PerSecond(7).Interval(), "1/7 s rounded up")
	assert.Equal(t, time.Nanosecond, core.Per(1e6, time.Nanosecond).Interval())
	assert.Zero(t, core.Rate{}.Interval())
	assert.Equal(t, 0.5, core.Per(1, 2*time.Second).PerSecond())

	assert.Equal(t, int64(3), core.GCRA{Rate: core.PerMinute(3)}.WithDefaults().Burst)
	assert.Equal(t, int64(9), core.GCRA{Rate: core.PerMinute(3), Burst: 9}.WithDefaults().Burst)
	assert.Equal(t, int64(3), core.TokenBucket{Rate: core.PerMinute(3)}.WithDefaults().Burst)
	assert.Equal(t, int64(3), core.LeakyBucket{Rate: core.PerMinute(3)}.WithDefaults().Capacity)
	assert.Equal(t, int64(-1), core.GCRA{Rate: core.PerMinute(3), Burst: -1}.WithDefaults().Burst, "only zero is defaulted")
}
