package redisinflight

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// TestTurns: turns are given first come, first served; a head that gives
// up, or is woken, while waiting leaves the line, and one given a turn as
// it gave up passes it on: no turn is ever lost or made.
func TestTurns(t *testing.T) {
	bg := context.Background()
	tr := &turns{free: 1}
	got, err := tr.take(bg, nil)
	require.NoError(t, err)
	require.True(t, got)

	type taken struct {
		got bool
		err error
	}
	take := func(ctx context.Context, freed <-chan struct{}) <-chan taken {
		c := make(chan taken, 1)
		go func() {
			got, err := tr.take(ctx, freed)
			c <- taken{got, err}
		}()
		return c
	}
	gone, cancel := context.WithCancel(bg)
	first := take(gone, nil)
	within.Until(t, "the first in line", func() bool { return tr.waiting() == 1 })
	freed := make(chan struct{})
	second := take(bg, freed)
	within.Until(t, "the second in line", func() bool { return tr.waiting() == 2 })
	third := take(bg, nil)
	within.Until(t, "the third in line", func() bool { return tr.waiting() == 3 })

	cancel()
	r := within.Recv(t, first, "the first giving up")
	require.False(t, r.got)
	require.ErrorIs(t, r.err, context.Canceled)
	close(freed)
	r = within.Recv(t, second, "the second woken")
	require.False(t, r.got)
	require.NoError(t, r.err)
	require.Equal(t, 1, tr.waiting(), "both left the line")

	tr.give()
	r = within.Recv(t, third, "the third's turn")
	require.True(t, r.got)
	require.Zero(t, tr.waiting())
	tr.give()
	require.Equal(t, 1, tr.free, "the one turn back")

	// Given a turn just as it gives up: either it holds the turn, or it
	// passed it on; none is lost or made.
	for range 200 {
		tr = &turns{}
		ctx, cancel := context.WithCancel(bg)
		c := take(ctx, nil)
		within.Until(t, "in line", func() bool { return tr.waiting() == 1 })
		go cancel()
		tr.give()
		if r := within.Recv(t, c, "its take"); r.got {
			tr.give()
		}
		require.Equal(t, 1, tr.free)
		require.Zero(t, tr.waiting())
	}
}
