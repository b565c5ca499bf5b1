package labelcap_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/internal/labelcap"
	"github.com/stretchr/testify/assert"
)

// TestAttackObs37LongNamesNotRetained: the bound on label values was a
// bound in number and in label length, not in what the exporter holds:
// Names kept every name it admitted, as given, as its map keys, for good.
// An Overrides provider naming policies after tenants (the case labelcap
// exists for) whose names are long keeps every one of them alive after
// the tenants have gone, and the core forgot them: 64 tenants named with
// 64 KiB, each with a limit of as long a name, held 8 MiB (an exporter
// has three Names of 512 policies each by default: 192 MiB). Now a
// name longer than MaxBytes is held as its first MaxBytes bytes (a copy)
// and a hash of the whole, as its label is written: the names retained
// are at most MaxBytes (plus a word) each, whatever their length.
func TestAttackObs37LongNamesNotRetained(t *testing.T) {
	const tenants, size = 64, 64 << 10
	b := labelcap.NewBounds(tenants)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	labels := map[string]bool{}
	for i := range tenants {
		policy := fmt.Sprintf("tenant-%03d-%s", i, strings.Repeat("p", size))
		limit := fmt.Sprintf("limit-%03d-%s", i, strings.Repeat("l", size))
		p, l := b.Labels(true, policy, limit)
		p2, l2 := b.Labels(true, strings.Clone(policy), strings.Clone(limit))
		assert.Equal(t, [2]string{p, l}, [2]string{p2, l2}, "a name seen before keeps its labels")
		assert.Equal(t, labelcap.Value(policy), p)
		assert.Equal(t, labelcap.Value(limit), l)
		assert.Equal(t, p, b.Table(strings.Clone(policy)), "a table of a decided policy has its label")
		labels[p] = true
	}
	assert.Len(t, labels, tenants, "every long name has a label of its own")
	p, l := b.Labels(true, "one-more-"+strings.Repeat("x", size), "l")
	assert.Equal(t, [2]string{labelcap.Other, labelcap.Other}, [2]string{p, l}, "the bound holds")
	runtime.GC()
	runtime.ReadMemStats(&ms)
	retained := int64(ms.HeapAlloc) - int64(before)
	perName := retained / (2 * tenants)
	t.Logf("retained %d bytes, %d per name of %d bytes", retained, perName, size)
	assert.Less(t, perName, int64(4*labelcap.MaxBytes), "bytes retained per long name admitted (of %d)", size)
	runtime.KeepAlive(b)
}
