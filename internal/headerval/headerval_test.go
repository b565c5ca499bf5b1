package headerval

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every size class holds its slots and text in one allocation; beyond the
// largest, the slots and the text are two.
func TestNewAllocations(t *testing.T) {
	cases := []struct {
		k, n   int
		allocs float64
	}{
		{1, 0, 1}, {3, 16, 1}, {4, 16, 1}, {5, 48, 1}, {6, 64, 1}, {8, 128, 1}, {9, 368, 1},
		{9, 369, 2}, {10, 2, 2},
	}
	for _, c := range cases {
		rendered := bytes.Repeat([]byte{'7'}, c.n)
		h := http.Header{}
		names := make([]string, c.k)
		for i := range names {
			names[i] = "F" + strconv.Itoa(i)
		}
		fill := func() {
			b := New(c.k, rendered)
			for i, name := range names {
				b.Set(h, i, name, b.Text(0, c.n*i/c.k))
			}
		}
		fill() // the map's own growth is not New's
		assert.Equal(t, c.allocs, testing.AllocsPerRun(50, fill), "%d slots, %d bytes", c.k, c.n)
	}
}

// The text is a copy: changing the rendered bytes afterwards changes no
// value; and each value slice has capacity 1, so that appending to one
// field leaves the next alone.
func TestSetIsolates(t *testing.T) {
	rendered := []byte("12345")
	b := New(3, rendered)
	h := http.Header{}
	b.Set(h, 0, "A", b.Text(0, 2))
	b.Set(h, 1, "B", b.Text(2, 5))
	b.Set(h, 2, "C", "fixed")
	rendered[0] = 'x'
	h.Add("A", "more")
	require.Equal(t, []string{"12", "more"}, h["A"])
	assert.Equal(t, []string{"345"}, h["B"])
	assert.Equal(t, []string{"fixed"}, h["C"])
	assert.Equal(t, 1, cap(h["B"]))
}
