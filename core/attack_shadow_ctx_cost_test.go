package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// valueCounter is a context that counts the lookups of its values.
type valueCounter struct {
	context.Context
	n int
}

func (c *valueCounter) Value(key any) any {
	c.n++
	return c.Context.Value(key)
}

// TestAttackShadowMaxDelayLookupWithoutShaper: the shadow limits' decision
// looked WithMaxDelay's bound up in the caller's context at every take
// and peek of a limiter with shadow limits, none of which shapes, where
// only a shaping shadow limit uses it: a walk of the request's context
// chain per decision, for nothing (and a nil context, which the decision
// never read there before, panicked). It is now looked up only for a take
// with a shaping shadow limit.
func TestAttackShadowMaxDelayLookupWithoutShaper(t *testing.T) {
	t.Parallel()
	p := core.MustPolicy("p",
		core.Limit{Name: "a", Algorithm: core.FixedWindow{Quota: 5, Window: time.Second}},
		core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: 1, Window: time.Second}, Shadow: true})
	l, err := core.NewLimiter(p)
	require.NoError(t, err)
	ctx := &valueCounter{Context: core.WithMaxDelay(context.Background(), time.Second)}
	for range 3 {
		r, err := l.AllowN(ctx, "k", 1)
		require.NoError(t, err)
		require.True(t, r.Allowed)
		_, err = l.Peek(ctx, "k", 1)
		require.NoError(t, err)
	}
	assert.Zero(t, ctx.n, "context lookups in 3 takes and 3 peeks")
}
