package waitline_test

import (
	"context"
	"errors"
	"testing"

	"github.com/floodgate-go/floodgate/internal/waitline"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

var errFull = errors.New("full")

func ready(t *waitline.Turn) bool {
	select {
	case <-t.Ready():
		return true
	default:
		return false
	}
}

func TestLinesOrderBoundsAndLeave(t *testing.T) {
	l := waitline.New(3, 4, errFull)
	a, err := l.Join("k")
	require.NoError(t, err)
	b, err := l.Join("k")
	require.NoError(t, err)
	c, err := l.Join("k")
	require.NoError(t, err)
	_, err = l.Join("k")
	require.ErrorIs(t, err, errFull, "per-key bound")
	o, err := l.Join("other")
	require.NoError(t, err)
	_, err = l.Join("third")
	require.ErrorIs(t, err, errFull, "total bound")
	require.True(t, ready(a) && ready(o))
	require.False(t, ready(b) || ready(c))

	b.Leave() // a waiter behind the head gives up: nobody moves up
	require.False(t, ready(c))
	a.Leave()
	require.True(t, ready(c), "the head left: the next one is head")
	a.Leave() // twice: nothing
	require.Equal(t, 1, l.Len("k"))
	c.Leave()
	o.Leave()
	require.Equal(t, 0, l.Len("k"))
	_, err = l.Join("third")
	require.NoError(t, err)
}

func TestAwait(t *testing.T) {
	l := waitline.New(2, 2, errFull)
	head, err := l.Await(context.Background(), "k")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = l.Await(ctx, "k")
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, l.Len("k"), "a cancelled waiter left the line")
	done := make(chan error)
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		_, err := l.Await(ctx, "k")
		done <- err
	}()
	within.Until(t, "the second waiter joining the line", func() bool { return l.Len("k") >= 2 })
	_, err = l.Await(context.Background(), "k")
	require.ErrorIs(t, err, errFull)
	cancel()
	require.ErrorIs(t, within.Recv(t, done, "the cancelled waiter's return"), context.Canceled)
	require.Equal(t, 1, l.Len("k"))
	head.Leave()
	require.Equal(t, 0, l.Len("k"))
}
