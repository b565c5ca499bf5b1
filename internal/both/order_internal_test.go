package both

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/require"
)

type nop struct{ id int }

func (nop) AllowN(context.Context, string, int64) (core.Result, error) { return core.Result{}, nil }
func (nop) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, nil
}

// TestOrderIsAPermutationWhileHintsFlip: the order a Pair charges its
// parts in holds each part once, however other requests' denials change
// the hints meanwhile. It read each hint twice (once to put the denied
// parts first, once to put the others after), so that a hint set or
// cleared between the two readings left a part out (never charged: its
// route admitted the request uncounted) or charged it twice.
func TestOrderIsAPermutationWhileHintsFlip(t *testing.T) {
	l, _ := Of(Part{Lim: nop{1}}, Part{Lim: nop{2}}, Part{Lim: nop{3}}, Part{Lim: nop{4}})
	p := l.(*Pair)
	var hs []uint64
	for _, pt := range p.parts[:p.n] {
		hs = append(hs, denials.hash(pt.Lim, "k"))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			h := hs[i%len(hs)]
			if i%2 == 0 {
				denials.remember(h)
			} else {
				denials.forget(h)
			}
		}
	})
	bad := 0
	for range 200_000 {
		order, _, _ := p.order("k")
		got := slices.Clone(order[:p.n])
		slices.Sort(got)
		if !slices.Equal(got, []int{0, 1, 2, 3}) {
			bad++
		}
	}
	close(stop)
	wg.Wait()
	for _, h := range hs {
		denials.forget(h)
	}
	require.Zero(t, bad, "orders that were not a permutation of the parts")
}
