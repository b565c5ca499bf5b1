package localfirst_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/require"
)

// TestAttackDefaultClockIsTheLimitersClock: the sync rounds must read the
// limiters' clock (Options.Clock), and without one each read its own
// default: the store time.Now's wall reading, a limiter core's monotonic
// one, which never follows a wall-clock step. After NTP stepped the wall
// clock back an hour, or a suspended machine's wall clock jumped on
// resume, the node's rounds and decisions disagreed by that much: in a
// simulation of two nodes, 100 a minute, 30 one-second rounds, a limiter
// reading an hour ahead of its store admitted 3,000 (GCRA; 150 at most
// with one clock), an hour behind 3,000 (FixedWindow; 10 s behind: 1,100).
// The store's default is now the limiters'.
func TestAttackDefaultClockIsTheLimitersClock(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	s, err := localfirst.New(client, localfirst.Options{Nodes: 2, Prefix: "defclock:"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.Equal(t, core.SystemClock(), localfirst.ClockOf(s), "the store reads the limiters' default clock")
}
