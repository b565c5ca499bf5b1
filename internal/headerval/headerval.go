// Package headerval gives the values of a response's header fields one
// allocation: the value slices of the fields and the bytes of the values
// rendered for the response share one block of memory.
package headerval

import (
	"net/http"
	"unsafe"
)

// Block holds the value slices of up to k fields and an immutable text
// from which their values are cut. The zero Block holds nothing.
type Block struct {
	slots []string
	text  string
}

// New returns a Block of k value slots whose text is a copy of rendered.
// Up to 9 slots and 368 bytes it makes one allocation (of 64 to 512 bytes,
// the smallest that fits); beyond, two.
func New(k int, rendered []byte) Block {
	n := len(rendered)
	var slots []string
	var buf []byte
	switch {
	case k <= 3 && n <= 16:
		b := new(struct {
			s [3]string
			b [16]byte
		})
		slots, buf = b.s[:k], b.b[:n]
	case k <= 5 && n <= 48:
		b := new(struct {
			s [5]string
			b [48]byte
		})
		slots, buf = b.s[:k], b.b[:n]
	case k <= 6 && n <= 64:
		b := new(struct {
			s [6]string
			b [64]byte
		})
		slots, buf = b.s[:k], b.b[:n]
	case k <= 8 && n <= 128:
		b := new(struct {
			s [8]string
			b [128]byte
		})
		slots, buf = b.s[:k], b.b[:n]
	case k <= 9 && n <= 368:
		b := new(struct {
			s [9]string
			b [368]byte
		})
		slots, buf = b.s[:k], b.b[:n]
	default:
		return Block{slots: make([]string, k), text: string(rendered)}
	}
	copy(buf, rendered)
	// buf is written once, here, and then only read through text: the
	// string stays immutable, as strings must.
	return Block{slots: slots, text: unsafe.String(unsafe.SliceData(buf), n)}
}

// Text returns the bytes i to j of the block's text, as a string sharing
// the block's memory.
func (b Block) Text(i, j int) string { return b.text[i:j] }

// Set sets field name of h to the single value v, held in slot i: the
// value slice has capacity 1, so that appending to it (h.Add) copies it
// instead of overwriting the next slot. name must be in canonical form.
func (b Block) Set(h http.Header, i int, name, v string) {
	b.slots[i] = v
	h[name] = b.slots[i : i+1 : i+1]
}
