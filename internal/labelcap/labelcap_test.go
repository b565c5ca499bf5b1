package labelcap_test

import (
	"fmt"
	"testing"

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
