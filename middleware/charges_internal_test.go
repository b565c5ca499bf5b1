package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/internal/charges"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// uncomparable is a Limiter of a type == panics on.
type uncomparable struct {
	Limiter
	_ []int
}

// What a decision charges is told as the decision would charge it:
// nothing for a skipped request or a broken cost, the scope joined to
// the key, Pairs (made afresh for each request) compared by parts, and
// limiters == cannot compare by identity.
func TestChargeOfAsDecided(t *testing.T) {
	t.Parallel()
	l := Rate("api", "10/min")
	m, err := New(l, Options{
		Key:  func(r *http.Request) (string, error) { return r.Header.Get("K"), nil },
		Skip: func(r *http.Request) bool { return r.Header.Get("Skip") != "" },
		Cost: func(r *http.Request) int64 { return int64(len(r.Header.Get("C"))) },
	})
	require.NoError(t, err)
	req := func(k, c string, skip bool) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("K", k)
		r.Header.Set("C", c)
		if skip {
			r.Header.Set("Skip", "1")
		}
		return r
	}
	a, ok := charges.Of(m, req("alice", "xx", false), "")
	require.True(t, ok)
	// One limiter (New): the Middleware stands for it (see chargeOf).
	assert.Equal(t, charges.Charge{Lim: m, Key: "alice", Cost: 2}, a)
	b, ok := charges.Of(m, req("alice", "xx", false), "")
	require.True(t, ok)
	assert.True(t, charges.Same(a, b))
	for name, r := range map[string]*http.Request{"other key": req("bob", "xx", false), "other cost": req("alice", "xxx", false)} {
		c, ok := charges.Of(m, r, "")
		require.True(t, ok, name)
		assert.False(t, charges.Same(a, c), name)
	}
	for name, r := range map[string]*http.Request{"skipped": req("alice", "xx", true), "no cost": req("alice", "", false), "no key": req("", "x", false)} {
		_, ok := charges.Of(m, r, "")
		assert.False(t, ok, name)
	}
	_, ok = charges.Of((*Middleware)(nil), req("alice", "x", false), "")
	assert.False(t, ok)

	l2 := Rate("other", "10/min")
	pair := func(x, y Limiter) Limiter {
		p, _ := both.Of(both.Part{Lim: x, Scope: "a"}, both.Part{Lim: y, Scope: "b"})
		return p
	}
	one, two := pair(l, l2), pair(l, l2)
	require.NotSame(t, one, two)
	assert.True(t, sameCharge(charges.Charge{Lim: one, Key: "k", Cost: 1}, charges.Charge{Lim: two, Key: "k", Cost: 1}))
	assert.False(t, sameCharge(charges.Charge{Lim: one, Key: "k", Cost: 1}, charges.Charge{Lim: pair(l2, l), Key: "k", Cost: 1}))
	assert.False(t, sameCharge(charges.Charge{Lim: one, Key: "k", Cost: 1}, charges.Charge{Lim: l, Key: "k", Cost: 1}))
	// A limiter == cannot compare is one by identity (see
	// same.Identical): the same value, not another of equal parts.
	u := uncomparable{Limiter: l}
	assert.True(t, sameCharge(charges.Charge{Lim: u, Key: "k", Cost: 1}, charges.Charge{Lim: u, Key: "k", Cost: 1}))
	assert.False(t, sameCharge(charges.Charge{Lim: u, Key: "k", Cost: 1}, charges.Charge{Lim: uncomparable{Limiter: l2}, Key: "k", Cost: 1}))
}
