package waitline_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/internal/waitline"
	"github.com/stretchr/testify/require"
)

func ready(t *waitline.Turn) bool {
	select {
	case <-t.Ready():
		return true
	default:
		return false
	}
}

func TestLinesOrderBoundsAndLeave(t *testing.T) {
	l := waitline.New(3, 4)
	a, err := l.Join("k")
	require.NoError(t, err)
	b, err := l.Join("k")
	require.NoError(t, err)
	c, err := l.Join("k")
	require.NoError(t, err)
	_, err = l.Join("k")
	require.ErrorIs(t, err, waitline.ErrFull, "per-key bound")
	o, err := l.Join("other")
	require.NoError(t, err)
	_, err = l.Join("third")
	require.ErrorIs(t, err, waitline.ErrFull, "total bound")
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
