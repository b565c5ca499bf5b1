package both_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// instant returns an instant for a test's clock, an hour after the one
// the call before returned (the same minute and second of the hour, so
// windows of a second, a minute or an hour start alike). The denial hints
// and the waits kept beside them are the process's, identified by the
// parts' addresses and read for a second after the instant they were
// kept at: a Limiter of a test that has ended, collected, may give its
// address to one of another test (or of the next run under -count), and
// on one shared instant that test read the first's wait as its own
// (TestAttackPairHintedDenialWaitsForItsOwnParts told 1m0s where its own
// parts wait 10 s, one run in three). Instants an hour apart keep each
// test's waits its own.
func instant() time.Time {
	return time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC).Add(time.Duration(instants.Add(1)) * time.Hour)
}

var instants atomic.Int64

func fixed(t *testing.T, n int64) *core.Limiter {
	t.Helper()
	p, err := core.Single("p", core.FixedWindow{Quota: n, Window: time.Hour})
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(instant().Add(5*time.Second))))
	require.NoError(t, err)
	return l
}

// pair returns the Pair charging a under scope sa and b under sb.
func pair(t *testing.T, a both.Limiter, sa string, b both.Limiter, sb string) *both.Pair {
	t.Helper()
	l, scope := both.Of(both.Part{Lim: a, Scope: sa}, both.Part{Lim: b, Scope: sb})
	require.Empty(t, scope)
	require.IsType(t, &both.Pair{}, l)
	return l.(*both.Pair)
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
	p := pair(t, a, "sa", b, "")
	res, err := p.AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.True(t, res.Allowed)
	assert.Equal(t, int64(0), res.Remaining, "the binding limiter's Result")
	assert.Equal(t, "k", p.Key())
	assert.Equal(t, int64(2), remaining(t, a, both.Scoped("sa", "k")))
	assert.Equal(t, int64(0), remaining(t, b, "k"))

	p2 := pair(t, a, "sa", b, "")
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
		p := pair(t, a, "", broken{}, "")
		if !first {
			p = pair(t, broken{}, "", a, "")
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
		q := pair(t, a, "", broken{}, "")
		if !first {
			q = pair(t, broken{}, "", a, "")
		}
		res, err = q.AllowN(ctx, "k", 1)
		require.NoError(t, err, "a denial decides")
		assert.False(t, res.Allowed)
	}
	res, err := pair(t, broken{}, "x", broken{}, "y").AllowN(ctx, "k", 1)
	require.ErrorIs(t, err, errDown)
	assert.False(t, res.Taken())
}

// Of leaves out unlimited parts and charges a bucket once: a Pair only
// for two buckets or more.
func TestOfChargesEachBucketOnce(t *testing.T) {
	a, b := fixed(t, 1), fixed(t, 1)
	l, s := both.Of(both.Part{Lim: a, Scope: "x"}, both.Part{}, both.Part{Lim: a, Scope: "x"})
	assert.Equal(t, both.Limiter(a), l)
	assert.Equal(t, "x", s)
	l, _ = both.Of(both.Part{}, both.Part{})
	assert.Nil(t, l)
	l, _ = both.Of(both.Part{Lim: a}, both.Part{Lim: a, Scope: "x"}, both.Part{Lim: b}, both.Part{Lim: b})
	require.IsType(t, &both.Pair{}, l)
	assert.Len(t, l.(*both.Pair).Parts(), 3)
}

// Three parts and more are all or nothing too: a denial by the last gives
// back what each before it took.
func TestPairOfThreeAllOrNothing(t *testing.T) {
	ctx := context.Background()
	a, b, c := fixed(t, 2), fixed(t, 2), fixed(t, 1)
	parts := []both.Part{{Lim: a}, {Lim: b}, {Lim: c}}
	l, _ := both.Of(parts...)
	res, err := l.AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.True(t, res.Allowed)
	assert.Equal(t, int64(0), res.Remaining, "c binds")
	l, _ = both.Of(parts...)
	res, err = l.AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.False(t, res.Allowed)
	assert.Equal(t, int64(1), remaining(t, a, "k"), "given back")
	assert.Equal(t, int64(1), remaining(t, b, "k"), "given back")
}
