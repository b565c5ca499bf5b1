package inflight_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/stretchr/testify/require"
)

// copySlot returns a copy of the struct s points to, as a deep-copying
// library would make (reflect: go vet flags a plain *s copy).
func copySlot(s *inflight.Slot) *inflight.Slot {
	c := new(inflight.Slot)
	reflect.ValueOf(c).Elem().Set(reflect.ValueOf(s).Elem())
	return c
}

// TestAttackInf37SlotCopyReleasesOnce: limit 2, both slots of a key held,
// and a copy made of one's struct (not of its pointer). Before, the copy
// carried a released flag of its own: releasing the slot and then the
// copy gave it back twice, the key's count fell to 0 and its entry left
// the table with the other slot still held, and two more Acquires were
// admitted (limit 2: 3 in flight); the copy's Released read false after
// the slot's release. Now every copy shares its slot's one release: the
// copy's Release fails with ErrReleased, changing nothing (limit 2: 2 in
// flight), and a copy of the zero Slot releases nothing.
func TestAttackInf37SlotCopyReleasesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := newMemory(t, 2, inflight.MemoryOptions{})
	s, err := m.Acquire(ctx, "k")
	require.NoError(t, err)
	other, err := m.Acquire(ctx, "k")
	require.NoError(t, err)
	cp := copySlot(s)
	require.NoError(t, s.Release(ctx))
	released := cp.Released()
	cerr := cp.Release(ctx)

	held := []*inflight.Slot{other}
	for range 2 {
		if s, err := m.Acquire(ctx, "k"); err == nil {
			held = append(held, s)
		}
	}
	require.Len(t, held, 2, "limit 2: %d in flight", len(held))
	require.Equal(t, 2, m.InFlight("k"))
	require.True(t, released, "the copy's slot is released")
	require.ErrorIs(t, cerr, inflight.ErrReleased, "a copy released the slot again")
	require.ErrorIs(t, cp.Renew(ctx), inflight.ErrReleased)

	// A copy released first: the slot is released once, by the copy.
	require.NoError(t, copySlot(held[1]).Release(ctx))
	require.True(t, held[1].Released())
	require.ErrorIs(t, held[1].Release(ctx), inflight.ErrReleased)
	require.Equal(t, 1, m.InFlight("k"))
	require.NoError(t, held[0].Release(ctx))
	require.Zero(t, m.InFlight("k"))

	// NewSlot's slots too, and the zero Slot.
	n := 0
	ns := inflight.NewSlot(func(context.Context) error { n++; return nil }, nil)
	require.NoError(t, copySlot(ns).Release(ctx))
	require.ErrorIs(t, ns.Release(ctx), inflight.ErrReleased)
	require.Equal(t, 1, n, "released %d times", n)
	require.ErrorIs(t, copySlot(new(inflight.Slot)).Release(ctx), inflight.ErrReleased)
}
