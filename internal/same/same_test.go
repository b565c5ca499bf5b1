package same_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/internal/same"
	"github.com/stretchr/testify/assert"
)

type holder struct{ v any }

func TestIsAndComparable(t *testing.T) {
	p := &holder{}
	slice := holder{[]int{1}}
	cases := []struct {
		a, b      any
		is, aComp bool
	}{
		{p, p, true, true},
		{p, &holder{}, false, true},
		{holder{1}, holder{1}, true, true},
		{slice, slice, false, false}, // == panics
		{[]int{1}, []int{1}, false, false},
		{func() {}, nil, false, false},
		{nil, nil, true, false},
	}
	for i, c := range cases {
		assert.Equal(t, c.is, same.Is(c.a, c.b), "case %d", i)
		assert.Equal(t, c.aComp, same.Comparable(c.a), "case %d", i)
	}
}
