package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/require"
)

// TestAttackClockOutsideTheRangeIsRefused: a round reads its clock in
// Unix nanoseconds, which time.Time.UnixNano wraps outside 1678..2262: a
// clock reading 2600-01-01 was read as 2015-06-13, and the round pushed
// and claimed in that window. Such a reading, and one before 1970, is
// now an error wrapping core.ErrClock, before any round trip.
func TestAttackClockOutsideTheRangeIsRefused(t *testing.T) {
	t.Parallel()
	for _, at := range []time.Time{
		time.Date(2600, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC),
	} {
		s, err := localfirst.New(newClient(t, "127.0.0.1:1"), localfirst.Options{Nodes: 2, Clock: fixedClock(at)})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		require.ErrorIs(t, s.Sync(context.Background()), core.ErrClock, "%v", at)
	}
}

// fixedClock reads one instant, whatever it is (coretest.Clock keeps Unix
// nanoseconds, which cannot hold these).
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }
