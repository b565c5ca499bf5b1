package both_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixed(t *testing.T, n int64) *core.Limiter {
	t.Helper()
	p, err := core.Single("p", core.FixedWindow{Quota: n, Window: time.Hour})
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))))
	require.NoError(t, err)
	return l
}

// remaining is what l still grants key: Peek reports what would remain
// after a cost of 1 (0 when it would deny).
func remaining(t *testing.T, l *core.Limiter, key string) int64 {
	t.Helper()
	res, err := l.Peek(context.Background(), key, 1)
	require.NoError(t, err)
	if !res.Allowed {
		return 0
	}
	return res.Remaining + 1
}

// Both limiters are charged under their scopes; a denial by the second
// gives the first's cost back; Refund gives both back, once.
func TestPairAllOrNothing(t *testing.T) {
	ctx := context.Background()
	a, b := fixed(t, 3), fixed(t, 1)
	p := both.New(a, "sa", b, "")
	res, err := p.AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.True(t, res.Allowed)
	assert.Equal(t, int64(0), res.Remaining, "the binding limiter's Result")
	assert.Equal(t, "k", p.Key())
	assert.Equal(t, int64(2), remaining(t, a, both.Scoped("sa", "k")))
	assert.Equal(t, int64(0), remaining(t, b, "k"))

	p2 := both.New(a, "sa", b, "")
	res, err = p2.AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.False(t, res.Allowed)
	assert.Equal(t, int64(2), remaining(t, a, both.Scoped("sa", "k")), "given back")

	_, err = p.Refund(ctx, "k", res)
	require.NoError(t, err)
	assert.Equal(t, int64(3), remaining(t, a, both.Scoped("sa", "k")))
	assert.Equal(t, int64(1), remaining(t, b, "k"))
	_, err = p.Refund(ctx, "k", res)
	assert.Error(t, err, "refunded once")
	assert.Equal(t, int64(3), remaining(t, a, both.Scoped("sa", "k")))
}

type broken struct{}

var errDown = errors.New("down")

func (broken) AllowN(context.Context, string, int64) (core.Result, error) {
	return core.Result{}, errDown
}

func (broken) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, errDown
}

// An error of either limiter does not spare the request the other's
// limit: the other's denial is returned as a denial; its admission is
// returned with the error, still held, and Refund gives it back.
func TestPairErrorKeepsTheOtherLimit(t *testing.T) {
	ctx := context.Background()
	for _, first := range []bool{true, false} {
		a := fixed(t, 1)
		p := both.New(a, "", broken{}, "")
		if !first {
			p = both.New(broken{}, "", a, "")
		}
		res, err := p.AllowN(ctx, "k", 1)
		require.ErrorIs(t, err, errDown)
		assert.True(t, res.Allowed && res.Taken(), "the healthy limiter's admission, held")
		assert.Equal(t, "k", p.Key())
		assert.Equal(t, int64(0), remaining(t, a, "k"))
		_, err = p.Refund(ctx, "k", res)
		require.NoError(t, err)
		assert.Equal(t, int64(1), remaining(t, a, "k"), "given back")

		_, err = a.AllowN(ctx, "k", 1)
		require.NoError(t, err)
		q := both.New(a, "", broken{}, "")
		if !first {
			q = both.New(broken{}, "", a, "")
		}
		res, err = q.AllowN(ctx, "k", 1)
		require.NoError(t, err, "a denial decides")
		assert.False(t, res.Allowed)
	}
	res, err := both.New(broken{}, "", broken{}, "").AllowN(ctx, "k", 1)
	require.ErrorIs(t, err, errDown)
	assert.False(t, res.Taken())
}
