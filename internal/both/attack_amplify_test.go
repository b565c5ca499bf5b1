package both_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// calls counts what a limiter is asked: each a store round trip on Redis.
type calls struct {
	l     *core.Limiter
	n     *int
	denyN *int // the denials it gave
}

func (c *calls) AllowN(ctx context.Context, key string, cost int64) (core.Result, error) {
	*c.n++
	res, err := c.l.AllowN(ctx, key, cost)
	if err == nil && !res.Allowed {
		*c.denyN++
	}
	return res, err
}

func (c *calls) Refund(ctx context.Context, key string, taken core.Result) (core.Result, error) {
	*c.n++
	return c.l.Refund(ctx, key, taken)
}

// A request of a path variant is charged on several routes, the route it
// reaches last. Once a client had spent that route (a login of 1 an
// hour), each of its variant requests was still admitted by every other
// part, denied by the last, and given back on the others: 2n-1 limiter
// calls (store round trips on Redis) for a request a canonical spelling
// has denied in one, or none (Redis's deny cache answers it locally). A
// flood of denied variant spellings multiplied the store's load by up to
// 7, past the deny cache. A Pair now charges first the part that last
// denied the key: one call, as for the canonical spelling.
func TestAttackPairDeniedVariantAmplifiesStoreCalls(t *testing.T) {
	ctx := context.Background()
	var n, denied int
	wide := [3]*calls{{fixed(t, 100), &n, &denied}, {fixed(t, 100), &n, &denied}, {fixed(t, 100), &n, &denied}}
	login := &calls{fixed(t, 1), &n, &denied}
	mk := func() both.Limiter {
		l, _ := both.Of(both.Part{Lim: wide[0]}, both.Part{Lim: wide[1]}, both.Part{Lim: wide[2]}, both.Part{Lim: login})
		return l
	}
	res, err := mk().AllowN(ctx, "client", 1)
	require.NoError(t, err)
	require.True(t, res.Allowed)
	for i := range 5 {
		n = 0
		res, err = mk().AllowN(ctx, "client", 1)
		require.NoError(t, err)
		assert.False(t, res.Allowed)
		if i == 0 {
			assert.Equal(t, 7, n, "the first denial: the others admitted and given back")
			continue
		}
		assert.Equal(t, 1, n, "request %d: the part that denied asked first, alone", i)
	}
	for _, w := range wide {
		assert.Equal(t, int64(99), remaining(t, w.l, "client"), "the denials took nothing")
	}

	// Another client's key is not ordered by it; and once the part
	// admits again, the order is the Pair's own.
	n = 0
	res, err = mk().AllowN(ctx, "other", 1)
	require.NoError(t, err)
	assert.True(t, res.Allowed)
	assert.Equal(t, 4, n)
}
