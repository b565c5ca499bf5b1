package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
)

// fuzzPolicies are the policies FuzzRedisMatchesMemory decides: every
// algorithm of coretest.Algorithms alone, and each beside the next one (so
// that every algorithm meets another in an all-or-nothing decision).
func fuzzPolicies() []*core.Policy {
	algs := coretest.Algorithms()
	var ps []*core.Policy
	for _, a := range algs {
		ps = append(ps, core.MustPolicy("fz-"+a.Name, a))
	}
	for i, a := range algs {
		b := algs[(i+1)%len(algs)]
		ps = append(ps, core.MustPolicy(fmt.Sprintf("fz-%s+%s", a.Name, b.Name), a, b))
	}
	return ps
}

// FuzzRedisMatchesMemory applies the same operations — takes, peeks,
// refunds and resets of random costs, at instants that advance or lag, in
// whole microseconds — to the Redis store (CallerClock: the same injected
// time) and to the in-memory store, and requires the same decisions: every
// field of every result, every error. The first byte picks the policy.
// Without -fuzz it replays the seed corpus (testdata/fuzz) as a test.
func FuzzRedisMatchesMemory(f *testing.F) {
	f.Add([]byte{0, 4, 1, 4, 1, 4, 1, 4, 1, 0, 200, 4, 2, 5, 3, 6, 0, 7, 0})
	f.Add([]byte{12, 4, 2, 4, 2, 4, 2, 4, 2, 1, 3, 4, 1, 6, 0, 4, 1})
	f.Add([]byte{7, 4, 0, 4, 0, 4, 0, 4, 0, 2, 100, 4, 0, 4, 0, 1, 255, 4, 1})
	f.Add([]byte{8, 4, 3, 4, 3, 2, 50, 4, 3, 4, 3, 1, 40, 4, 0, 5, 1})
	f.Add([]byte{25, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 2, 30, 4, 2, 6, 0, 4, 0})
	f.Add([]byte{9, 4, 0, 4, 0, 4, 0, 4, 0, 0, 100, 0, 100, 4, 0, 4, 0, 3, 1})
	f.Add([]byte{21, 4, 0, 4, 0, 4, 0, 0, 100, 4, 2, 4, 1, 2, 50, 4, 1, 6, 0, 4, 0})
	f.Add([]byte("hammer the same key with growing costs, stale clocks and refunds"))
	srv := startRedis(f)
	s := newStore(f, srv.Client(f), redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	mem, err := core.NewMemoryStore(core.MemoryOptions{})
	if err != nil {
		f.Fatal(err)
	}
	clk := coretest.NewClock(coretest.T0)
	type pair struct{ got, ref *core.Limiter }
	var pairs []pair
	for _, p := range fuzzPolicies() {
		got, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
		if err != nil {
			f.Fatal(err)
		}
		ref, err := core.NewLimiter(p, core.WithStore(mem), core.WithClock(clk))
		if err != nil {
			f.Fatal(err)
		}
		pairs = append(pairs, pair{got, ref})
	}
	var execs atomic.Int64
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		pr := pairs[int(ops[0])%len(pairs)]
		// A key of its own per run: both stores start from a key never seen.
		key := fmt.Sprint("fz", execs.Add(1))
		ctx := context.Background()
		now := coretest.T0
		clk.Set(now)
		var lastGot, lastRef core.Result
		for i := 1; i+1 < len(ops) && i < 200; i += 2 {
			op, arg := ops[i], int64(ops[i+1])
			cost := 1 + arg%4
			if arg >= 240 {
				cost = 1 + arg%16 // now and then beyond any quota
			}
			var g, r core.Result
			var eg, er error
			switch op % 8 {
			case 0, 1:
				now = now.Add(time.Duration(arg*arg) * 100 * time.Microsecond) // up to 6.5 s
				clk.Set(now)
				continue
			case 2:
				clk.Set(now.Add(-time.Duration(arg) * 10 * time.Millisecond)) // a lagging caller
				continue
			case 3:
				g, eg = pr.got.Peek(ctx, key, cost)
				r, er = pr.ref.Peek(ctx, key, cost)
			case 4, 5:
				g, eg = pr.got.AllowN(ctx, key, cost)
				r, er = pr.ref.AllowN(ctx, key, cost)
				if g.Taken() || r.Taken() {
					lastGot, lastRef = g, r
				}
			case 6:
				g, eg = pr.got.Refund(ctx, key, lastGot)
				r, er = pr.ref.Refund(ctx, key, lastRef)
				if arg%2 == 0 { // else: refunded again, which must do nothing more
					lastGot, lastRef = core.Result{}, core.Result{}
				}
			case 7:
				if arg%4 != 0 {
					clk.Set(now)
					continue
				}
				eg, er = pr.got.Reset(ctx, key), pr.ref.Reset(ctx, key)
			}
			where := fmt.Sprintf("policy %s op %d (%d, %d) at +%v", pr.ref.Policy().Name(), i/2, op%8, arg, clk.Now().Sub(coretest.T0))
			if !sameError(eg, er) {
				t.Fatalf("%s: error %v, want %v", where, eg, er)
			}
			if g.Taken() != r.Taken() || g.Allowed != r.Allowed || g.Name != r.Name || g.Remaining != r.Remaining ||
				g.RetryAfter != r.RetryAfter || g.ResetAfter != r.ResetAfter || g.Delay != r.Delay ||
				fmt.Sprint(g.Limits()) != fmt.Sprint(r.Limits()) {
				t.Fatalf("%s:\n got  %v %+v\n want %v %+v", where, g.Taken(), g.Limits(), r.Taken(), r.Limits())
			}
		}
	})
}

// sameError reports whether got and want are both nil, or both wrap the
// same refund sentinel of core (the errors a decision's caller acts on).
func sameError(got, want error) bool {
	if (got == nil) != (want == nil) {
		return false
	}
	for _, e := range []error{core.ErrNotTaken, core.ErrRefunded, core.ErrRefundForeign, core.ErrRefundExpired, core.ErrRefundLedgerFull} {
		if errors.Is(got, e) != errors.Is(want, e) {
			return false
		}
	}
	return true
}
