package coretest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/within"
)

// greedy takes cost 1 for key at the clock's instant until a take is
// denied (at most limit+10 times) and returns how many passed.
func greedy(t *testing.T, l *core.Limiter, key string, limit int64) int64 {
	t.Helper()
	n := int64(0)
	for range limit + 10 {
		r, err := l.AllowN(context.Background(), key, 1)
		requireNoError(t, err)
		if !r.Allowed {
			break
		}
		n++
	}
	return n
}

// runRefundOnce: refunding one decision 100 times, and copies of it, gives
// it back once, on every algorithm: the key then admits exactly what a key
// whose take was refunded once admits.
func runRefundOnce(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	algs := Algorithms()
	concurrently(t, len(algs), len(algs), func(i int) string { return algs[i].Name }, func(t *testing.T, i int) {
		lim := algs[i]
		p, err := core.NewPolicy(lim.Name, lim)
		requireNoError(t, err)
		l, _ := limiter(t, newStore, p)
		for _, key := range []string{"once", "many"} {
			r, err := l.AllowN(ctx, key, 1)
			requireNoError(t, err)
			requireTrue(t, r.Allowed)
			_, err = l.Refund(ctx, key, r)
			requireNoError(t, err)
			if key == "once" {
				continue
			}
			cp := r
			for range 100 {
				_, err = l.Refund(ctx, key, r)
				requireErrorIs(t, err, core.ErrRefunded)
				_, err = l.Refund(ctx, key, cp)
				requireErrorIs(t, err, core.ErrRefunded)
			}
		}
		first, err := l.Peek(ctx, "once", 1)
		requireNoError(t, err)
		once := greedy(t, l, "once", first.Quota)
		many := greedy(t, l, "many", first.Quota)
		assertEqual(t, once, many, "100 refunds of one decision give back what one does")
		assertLessOrEqual(t, many, first.Quota+1)
		// A foreign key or limiter cannot take the refund either.
		r, err := l.AllowN(ctx, "x", 1)
		requireNoError(t, err)
		if r.Allowed {
			_, err = l.Refund(ctx, "y", r)
			assertErrorIs(t, err, core.ErrRefundForeign)
			other, _ := limiter(t, newStore, p)
			_, err = other.Refund(ctx, "x", r)
			assertErrorIs(t, err, core.ErrRefundForeign)
		}
	})
}

// runRefundRace: copies of one decision refunded concurrently: exactly one
// refund succeeds.
func runRefundRace(t *testing.T, newStore NewStore) {
	p, err := core.Single("race", core.GCRA{Rate: core.PerHour(5)})
	requireNoError(t, err)
	l, _ := limiter(t, newStore, p)
	ctx := context.Background()
	for range 5 {
		r, err := l.AllowN(ctx, "k", 1)
		requireNoError(t, err)
		requireTrue(t, r.Allowed)
		var mu sync.Mutex
		ok, refused := 0, 0
		var wg sync.WaitGroup
		for range 16 {
			cp := r
			wg.Go(func() {
				_, err := l.Refund(ctx, "k", cp)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					ok++
				} else if assertErrorIs(t, err, core.ErrRefunded) {
					refused++
				}
			})
		}
		within.Wait(t, &wg, "the test's goroutines")
		assertEqual(t, 1, ok)
		assertEqual(t, 15, refused)
		r, err = l.AllowN(ctx, "k", 1) // what the refund gave back
		requireNoError(t, err)
		requireTrue(t, r.Allowed)
	}
	r, err := l.AllowN(ctx, "k", 1)
	requireNoError(t, err)
	assertFalse(t, r.Allowed, "5 per hour: 5 kept, 5 refunded once each, no more")
}

// runLateRefunds: over random schedules of takes and refunds (late ones,
// repeated ones, of any earlier decision) on a fake clock, no instant ever
// admits more than the limit grants at once: the takes admitted at an
// instant, less the refunds made at it of takes that still held something
// (each gives back at most its cost), stay within the quota (Backoff:
// Free, plus the failure that sets the lock). A refund gives back at most
// what its take still holds, so a late one cannot double the burst. Each
// schedule is a subtest of its own key, limiter, clock and random source,
// 8 at once per algorithm.
func runLateRefunds(t *testing.T, newStore NewStore, short bool) {
	schedules := 40
	if short {
		schedules = 10
	}
	algs := Algorithms()
	concurrently(t, len(algs), len(algs), func(i int) string { return algs[i].Name }, func(t *testing.T, i int) {
		lim := algs[i]
		p, err := core.NewPolicy(lim.Name, lim)
		requireNoError(t, err)
		l, _ := limiter(t, newStore, p)
		peek, err := l.Peek(context.Background(), "probe", 1)
		requireNoError(t, err)
		bound := peek.Quota
		if _, ok := lim.Algorithm.(core.Backoff); ok {
			bound++
		}
		concurrently(t, schedules, 8, func(sc int) string { return fmt.Sprint(sc) }, func(t *testing.T, sc int) {
			l, clk := limiter(t, newStore, p)
			rng := rand.New(rand.NewPCG(uint64(i), uint64(sc)))
			lateRefundSchedule(t, l, clk, rng, "k"+strconv.Itoa(sc), peek.Window, bound)
		})
	})
}

// lateRefundSchedule runs one schedule of runLateRefunds, 60 steps.
func lateRefundSchedule(t *testing.T, l *core.Limiter, clk *Clock, rng *rand.Rand, key string, window time.Duration, bound int64) {
	ctx := context.Background()
	at := T0
	var taken []core.Result
	net := map[int64]int64{} // instant → admitted less refunded, of takes at it
	for st := range 60 {
		switch k := rng.IntN(10); {
		case k < 3:
			at = at.Add(time.Duration(rng.Int64N(int64(window)/2+1)) / time.Microsecond * time.Microsecond)
		case k < 6 && len(taken) > 0:
			clk.Set(at)
			tk := taken[rng.IntN(len(taken))]
			_, err := l.Refund(ctx, key, tk)
			if err == nil {
				// A take that still held something may give back up to
				// its cost now; one that held nothing (its hold, at most
				// its ResetAfter, has passed) gives nothing back.
				if !refunded(tk, &taken) && at.Before(tk.At().Add(tk.ResetAfter)) {
					net[at.UnixNano()] -= tk.Cost
				}
			} else {
				requireErrorIs(t, err, core.ErrRefunded)
			}
		default:
			clk.Set(at)
			r, err := l.AllowN(ctx, key, 1)
			requireNoError(t, err)
			if r.Allowed {
				taken = append(taken, r)
				net[r.At().UnixNano()]++
			}
		}
		// Push: take all that passes at this instant.
		if rng.IntN(4) == 0 {
			clk.Set(at)
			for range bound + 5 {
				r, err := l.AllowN(ctx, key, 1)
				requireNoError(t, err)
				if !r.Allowed {
					break
				}
				taken = append(taken, r)
				net[r.At().UnixNano()]++
			}
		}
		if n := net[at.UnixNano()]; n > bound {
			t.Fatalf("step %d: %d admitted at one instant, less refunds; the bound is %d", st, n, bound)
		}
	}
}

// refunded reports whether tk was refunded before, and marks it.
func refunded(tk core.Result, taken *[]core.Result) bool {
	for i, r := range *taken {
		if r == tk {
			*taken = append((*taken)[:i], (*taken)[i+1:]...)
			return false
		}
	}
	return true
}
