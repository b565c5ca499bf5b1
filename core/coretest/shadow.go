package coretest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// runShadow checks shadow limits: the enforced limits decide as if the
// shadow ones were absent, each shadow limit keeps its own state as if it
// were enforced alone (it takes what it admits, whatever the enforced
// verdict), peeks consume nothing in either, and a reset forgets both.
func runShadow(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	hourly := func(burst int64) core.Algorithm { return core.GCRA{Rate: core.PerHour(burst), Burst: burst} }
	p, err := core.NewPolicy(fmt.Sprintf("shadow#%d", policySeq.Add(1)),
		core.Limit{Name: "enforced", Algorithm: hourly(2)},
		core.Limit{Name: "candidate", Algorithm: hourly(3), Shadow: true})
	requireNoError(t, err)
	clk := NewClock(T0)
	obs := &Observer{}
	l, err := core.NewLimiter(p, core.WithStore(newStore(t)), core.WithClock(clk), core.WithObserver(obs))
	requireNoError(t, err)

	type want struct {
		allowed         bool
		remaining       int64
		shadowAllowed   bool
		shadowRemaining int64
	}
	for i, w := range []want{
		{true, 1, true, 2},
		{true, 0, true, 1},
		{false, 0, true, 0}, // the enforced limit denies; the shadow one, alone, would admit
		{false, 0, false, 0},
	} {
		r, err := l.Allow(ctx, "k")
		requireNoError(t, err)
		msg := fmt.Sprintf("take %d", i+1)
		assertEqual(t, w.allowed, r.Allowed, msg)
		assertEqual(t, "enforced", r.Name, msg)
		assertEqual(t, w.remaining, r.Remaining, msg)
		requireLen(t, r.Limits(), 1, msg)
		sh := r.ShadowLimits()
		requireLen(t, sh, 1, msg)
		assertEqual(t, "candidate", sh[0].Name, msg)
		assertEqual(t, int64(3), sh[0].Quota, msg)
		assertEqual(t, w.shadowAllowed, sh[0].Allowed, msg)
		assertEqual(t, w.shadowRemaining, sh[0].Remaining, msg)
		assertEqual(t, !w.shadowAllowed, r.ShadowDenied(), msg)
		d := obs.Decisions()[i]
		assertEqual(t, "enforced", d.LimitName, msg)
		if w.shadowAllowed {
			assertEqual(t, 0, len(d.ShadowDenied), msg)
		} else {
			assertEqual(t, []string{"candidate"}, d.ShadowDenied, msg)
		}
	}

	// A peek reports both and consumes nothing; another key is untouched.
	for range 2 {
		r, err := l.Peek(ctx, "k", 1)
		requireNoError(t, err)
		assertFalse(t, r.Allowed, "peek")
		sh := r.ShadowLimits()
		requireLen(t, sh, 1, "peek")
		assertFalse(t, sh[0].Allowed, "peek")
		assertTrue(t, sh[0].RetryAfter > 0, "peek: the shadow's retry-after")
		assertEqual(t, 0, len(obs.Decisions())-4, "a peek is no decision")
	}
	other, err := l.Peek(ctx, "other", 1)
	requireNoError(t, err)
	// (A peek reports what a take of its cost would leave.)
	assertEqual(t, int64(1), other.Remaining, "another key")
	assertEqual(t, int64(2), other.ShadowLimits()[0].Remaining, "another key's shadow")

	// A reset forgets the key in both.
	requireNoError(t, l.Reset(ctx, "k"))
	r, err := l.Peek(ctx, "k", 1)
	requireNoError(t, err)
	assertEqual(t, int64(1), r.Remaining, "after reset")
	assertEqual(t, int64(2), r.ShadowLimits()[0].Remaining, "after reset: the shadow")

	// A stricter shadow limit never denies: it reports.
	strict, err := core.NewPolicy(fmt.Sprintf("strict#%d", policySeq.Add(1)),
		core.Limit{Name: "enforced", Algorithm: hourly(5)},
		core.Limit{Name: "strict", Algorithm: hourly(1), Shadow: true})
	requireNoError(t, err)
	ls, err := core.NewLimiter(strict, core.WithStore(newStore(t)), core.WithClock(clk))
	requireNoError(t, err)
	for i := range 5 {
		r, err := ls.Allow(ctx, "k")
		requireNoError(t, err)
		assertTrue(t, r.Allowed, "strict shadow, take %d", i+1)
		assertEqual(t, int64(4-i), r.Remaining, "strict shadow, take %d", i+1)
		assertEqual(t, i > 0, r.ShadowDenied(), "strict shadow, take %d", i+1)
	}
	r, err = ls.Allow(ctx, "k")
	requireNoError(t, err)
	assertFalse(t, r.Allowed, "the enforced limit still denies")
	assertEqual(t, time.Hour/5, r.RetryAfter, "its retry-after is the enforced limit's")
}
