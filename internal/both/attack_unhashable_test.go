package both_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/stretchr/testify/require"
)

// byValue is a limiter used by value whose type is comparable but whose
// value is not (an interface field holding a slice): == on it panics, and
// so did hashing it for the Pair's denial hints, at request time.
type byValue struct {
	l    *core.Limiter
	tags any
}

func (b byValue) AllowN(ctx context.Context, key string, cost int64) (core.Result, error) {
	return b.l.AllowN(ctx, key, cost)
}

func (b byValue) Refund(ctx context.Context, key string, taken core.Result) (core.Result, error) {
	return b.l.Refund(ctx, key, taken)
}

// TestAttackPairOfUnhashableLimiterValues: a Pair of limiters whose
// values cannot be hashed decides, never panics.
func TestAttackPairOfUnhashableLimiterValues(t *testing.T) {
	ctx := context.Background()
	a, b := byValue{fixed(t, 1), []string{"a"}}, byValue{fixed(t, 5), []string{"b"}}
	for i, want := range []bool{true, false, false} {
		p, _ := both.Of(both.Part{Lim: a}, both.Part{Lim: b})
		var res core.Result
		var err error
		require.NotPanics(t, func() { res, err = p.AllowN(ctx, "k", 1) }, "request %d", i)
		require.NoError(t, err)
		require.Equal(t, want, res.Allowed, "request %d", i)
	}
}
