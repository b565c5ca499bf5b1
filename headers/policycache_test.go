package headers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriterCachesPoliciesAfterManyChanges: a limiter decides a policy of
// its own after each SetPolicy, so a toggle between two quotas writes a
// new *core.Policy each time. The Writer kept the first 256 it wrote and
// rendered every later one on each Write: after 300 toggles a Write made
// 11 allocations, 1 before. Now as many as before the toggles. (Not
// parallel: AllocsPerRun counts the process's allocations.)
func TestWriterCachesPoliciesAfterManyChanges(t *testing.T) {
	fw := func(q int64) *core.Policy {
		return core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.FixedWindow{Quota: q, Window: time.Second}})
	}
	a, b := fw(10), fw(20)
	l, err := core.NewLimiter(a)
	require.NoError(t, err)
	w, err := headers.New(headers.Options{Draft: headers.DraftIETF11})
	require.NoError(t, err)
	h := http.Header{}
	allocs := func() float64 {
		r, err := l.Allow(context.Background(), "k")
		require.NoError(t, err)
		w.Write(h, &r)
		return testing.AllocsPerRun(20, func() { clear(h); w.Write(h, &r) })
	}
	first := allocs()
	for i := range 300 {
		require.NoError(t, l.SetPolicy([]*core.Policy{b, a}[i%2]))
		r, err := l.Allow(context.Background(), "k")
		require.NoError(t, err)
		w.Write(h, &r)
	}
	assert.LessOrEqual(t, allocs(), first, "a policy set after 300 changes is rendered once")
}
