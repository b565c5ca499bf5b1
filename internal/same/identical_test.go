package same_test

import (
	"math"
	"testing"

	"github.com/floodgate-go/floodgate/internal/same"
	"github.com/stretchr/testify/assert"
)

// parts holds what == cannot compare, exported and not.
type parts struct {
	S []int
	M map[string]int
	F func() int
	I any
	f func() int
	i any
}

func TestIdentical(t *testing.T) {
	s, m := []int{1, 2}, map[string]int{}
	n := 0
	f := func() int { n++; return n }
	g := func() int { n++; return n } // another closure over n
	p := parts{S: s, M: m, F: f, I: f, f: f, i: 1}
	cases := []struct {
		name string
		a, b any
		want bool
	}{
		{"one struct", p, p, true},
		{"copies", p, parts{S: s, M: m, F: f, I: f, f: f, i: 1}, true},
		{"equal slice, another array", p, parts{S: []int{1, 2}, M: m, F: f, I: f, f: f, i: 1}, false},
		{"shorter slice", p, parts{S: s[:1], M: m, F: f, I: f, f: f, i: 1}, false},
		{"another map", p, parts{S: s, M: map[string]int{}, F: f, I: f, f: f, i: 1}, false},
		{"another closure", p, parts{S: s, M: m, F: g, I: f, f: f, i: 1}, false},
		{"another closure, unexported", p, parts{S: s, M: m, F: f, I: f, f: g, i: 1}, false},
		{"another closure in an interface", p, parts{S: s, M: m, F: f, I: g, f: f, i: 1}, false},
		{"another value in an interface", p, parts{S: s, M: m, F: f, I: f, f: f, i: 2}, false},
		{"one func", f, f, true},
		{"two funcs", f, g, false},
		{"a func in an unexported interface", parts{i: f}, parts{i: f}, false},
		{"pointers", &p, &p, true},
		{"two pointers", &p, &parts{}, false},
		{"types", 1, int64(1), false},
		{"nil", nil, nil, true},
		{"nil and one", nil, p, false},
		{"zeros", parts{i: 0.0}, parts{i: math.Copysign(0, -1)}, false},
		{"NaNs", parts{i: math.NaN()}, parts{i: math.NaN()}, true},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, same.Identical(c.a, c.b), c.name)
		assert.Equal(t, c.want, same.Identical(c.b, c.a), c.name)
	}
}
