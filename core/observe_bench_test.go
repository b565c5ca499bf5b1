package core_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/internal/observetest"
)

// BenchmarkObserver decides on one hot key of the memory store without an
// observer and with one that counts (the cost of being observed), on a
// fake clock so that the figures (and callgrind's instruction counts:
// GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind
// --toggle-collect='github.com/floodgate-go/floodgate/core.(*Limiter).Take'
// core.test -test.bench '^BenchmarkObserver$/allow/none$' -test.benchtime
// 200000x) are the decision's alone. Compare "none" with the same
// benchmark built before observers existed.
func BenchmarkObserver(b *testing.B) {
	observetest.BenchObservers(b, observetest.Bench{Name: "counting", Observer: &nopObserver{}})
}
