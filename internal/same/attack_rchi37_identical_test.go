package same_test

import (
	"context"
	"sync"
	"testing"
	"unsafe"

	"github.com/floodgate-go/floodgate/internal/same"
	"github.com/stretchr/testify/assert"
)

type bucketer struct{ n *int }

func (b bucketer) AllowN(context.Context, string, int64) int { *b.n++; return *b.n }

type recursive struct {
	next *recursive
	self any
	f    [2]func() int
	u    unsafe.Pointer
	i    interface {
		AllowN(context.Context, string, int64) int
	}
	mu *sync.Mutex
	m  map[string]any
	e  struct{ F func() }
	ei any
}

type gen[T any] struct{ f func(T) T }

// Limiters that charge different buckets are never taken for one, and no
// value makes Identical panic.
func TestRchi37IdenticalNeverConfuses(t *testing.T) {
	t.Parallel()
	n1, n2 := 0, 0
	b1, b2 := bucketer{&n1}, bucketer{&n2}
	m1, m2 := b1.AllowN, b2.AllowN
	assert.False(t, same.Identical(m1, m2), "method values of two receivers")
	assert.True(t, same.Identical(m1, m1))
	type holder struct {
		f func(context.Context, string, int64) int
	}
	assert.False(t, same.Identical(holder{m1}, holder{m2}))
	// Method values of one receiver made twice: two closures, told
	// apart (an over-charge at worst).
	assert.False(t, same.Identical(holder{b1.AllowN}, holder{b1.AllowN}))
	mk := func(n *int) func() int { return func() int { *n++; return *n } }
	assert.False(t, same.Identical(mk(&n1), mk(&n2)))
	assert.False(t, same.Identical(gen[int]{func(i int) int { return i }}, gen[int]{func(i int) int { return i + 1 }}))
	// Values made with unexported parts of every kind do not panic.
	r := &recursive{}
	r.next, r.self = r, r
	vals := []any{
		recursive{next: r, self: r, u: unsafe.Pointer(r), i: b1, m: map[string]any{}, ei: [1]func(){func() {}}},
		recursive{f: [2]func() int{mk(&n1), nil}, e: struct{ F func() }{func() {}}, ei: struct{ f func() }{func() {}}},
		recursive{ei: &struct{ f []func() }{}},
		recursive{ei: map[any]any{}},
		recursive{i: bucketer{}},
		[]any{1}, [0]func(){}, [3]any{nil, m1, b1},
		struct{ a, b any }{nil, (*int)(nil)},
		gen[string]{}, gen[int]{},
	}
	for _, a := range vals {
		for _, b := range vals {
			assert.NotPanics(t, func() { same.Identical(a, b) })
		}
	}
	x, y := recursive{i: b1}, recursive{i: b2}
	assert.False(t, same.Identical(x, y), "unexported interface holding two receivers")
	x, y = recursive{f: [2]func() int{mk(&n1)}}, recursive{f: [2]func() int{mk(&n2)}}
	assert.False(t, same.Identical(x, y), "unexported array of closures")
	assert.False(t, same.Identical(recursive{ei: []int{1}}, recursive{ei: []int{1}}))
}
