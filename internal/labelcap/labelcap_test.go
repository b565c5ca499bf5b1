package labelcap_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/labelcap"
	"github.com/stretchr/testify/assert"
)

// The first max policies keep their names, a later one is Other; a
// policy's limits keep theirs until max × core.MaxLimits pairs are seen,
// a later one is Other under the policy's own name.
func TestLabelsBounded(t *testing.T) {
	t.Parallel()
	n := labelcap.New(2)
	for _, p := range []string{"a", "b"} {
		p2, l := n.Labels(p, "minute")
		assert.Equal(t, [2]string{p, "minute"}, [2]string{p2, l})
	}
	p, l := n.Labels("c", "minute")
	assert.Equal(t, [2]string{labelcap.Other, labelcap.Other}, [2]string{p, l}, "a third policy")
	p, l = n.Labels("a", "minute")
	assert.Equal(t, [2]string{"a", "minute"}, [2]string{p, l}, "admitted stays admitted")
	for i := range 2*core.MaxLimits - 2 {
		p, l = n.Labels("a", fmt.Sprint("l", i))
		assert.Equal(t, [2]string{"a", fmt.Sprint("l", i)}, [2]string{p, l})
	}
	p, l = n.Labels("b", "one-more")
	assert.Equal(t, [2]string{"b", labelcap.Other}, [2]string{p, l}, "the pairs are full")
	p, l = n.Labels("b", "minute")
	assert.Equal(t, [2]string{"b", "minute"}, [2]string{p, l})
}

// A value is valid UTF-8 of at most MaxBytes bytes, cut at a rune
// boundary; two long names differing past the cut stay apart; a short
// valid name is itself.
func TestValue(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "api", labelcap.Value("api"))
	assert.Equal(t, "a\uFFFDb", labelcap.Value("a\xffb"))
	a, b := labelcap.Value(strings.Repeat("é", 200)+"a"), labelcap.Value(strings.Repeat("é", 200)+"b")
	for _, v := range []string{a, b} {
		assert.LessOrEqual(t, len(v), labelcap.MaxBytes)
		assert.True(t, utf8.ValidString(v))
		assert.True(t, strings.HasPrefix(v, "éé"))
	}
	assert.NotEqual(t, a, b)
	assert.Equal(t, a, labelcap.Value(strings.Repeat("é", 200)+"a"), "the same name, the same value")
	assert.Equal(t, labelcap.Value(strings.Repeat("x", 1000)), labelcap.Value(labelcap.Value(strings.Repeat("x", 1000))), "a value is its own")
}

// A table's policy has the label its decisions gave it, in the first set
// admitting it, else one of tables while it admits it, else Other.
func TestTable(t *testing.T) {
	t.Parallel()
	own, tables := labelcap.New(1), labelcap.New(1)
	own.Labels("login", "minute")
	own.Labels("signup", "minute") // beyond own's bound
	assert.Equal(t, "login", labelcap.Table("login", tables, own))
	assert.Equal(t, "signup", labelcap.Table("signup", tables, own), "admitted by tables")
	assert.Equal(t, labelcap.Other, labelcap.Table("tenant", tables, own), "tables is full")
	assert.Equal(t, "signup", labelcap.Table("signup", tables, own), "admitted stays admitted")
	long := strings.Repeat("x", 1000)
	assert.Equal(t, labelcap.Value(long), labelcap.Table(long, labelcap.New(1)))
}
