package isnil_test

import (
	"io"
	"testing"

	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/stretchr/testify/assert"
)

type impl struct{}

func (*impl) Read([]byte) (int, error) { return 0, io.EOF }

func TestValue(t *testing.T) {
	var nilReader io.Reader
	var typedNil io.Reader = (*impl)(nil)
	var fn func()
	var m map[string]int
	for _, v := range []any{nil, nilReader, typedNil, fn, m, (*int)(nil), []int(nil), (chan int)(nil)} {
		assert.True(t, isnil.Value(v), "%T", v)
	}
	x := 1
	for _, v := range []any{0, "", struct{}{}, &impl{}, &x, func() {}, map[string]int{}, []int{}} {
		assert.False(t, isnil.Value(v), "%T", v)
	}
}
