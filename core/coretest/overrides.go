package coretest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/within"
)

// RunOverrides runs the checks of core.Overrides against the stores newStore
// returns (deciding by the caller's clock): keys with and without an override
// decided by their own limits on separate state; the provider's answers
// cached (overrides, their absence and its errors, each for its TTL) and
// asked once for concurrent decisions of a key; provider errors and panics,
// and unusable override policies, decided by the default policy (by the key's
// last known policy once it has one), never unlimited, and a caller gone
// during the provider call caching nothing; an override's changed limits
// applied on its kept state; refunds going to the limiter that decided.
func RunOverrides(t *testing.T, newStore NewStore) {
	runGroups(t, newStore, []group{
		{"Limits", runOverrideLimits},
		{"Cache", runOverrideCache},
		{"Faults", runOverrideFaults},
		{"Change", runOverrideChange},
		{"Concurrent", runOverrideConcurrent},
		{"Refund", runOverrideRefund},
		{"Stale", runOverrideStale},
	})
}

// overrideFixture is an Overrides of a default policy of Quota 2 per hour
// (a fixed window: time moved for the cache's TTLs leaves the counts as
// they are), whose provider answers from a table it counts calls of.
type overrideFixture struct {
	o     *core.Overrides
	clk   *Clock
	calls atomic.Int64
	errs  atomic.Int64
	mu    sync.Mutex
	table map[string]*core.Policy // key → override
	fail  error                   // returned for every key when set
	panic bool
	// ctxErr makes the provider fail with its context's error when the
	// context has ended, as one that queries a database does.
	ctxErr bool
	name   string // unique prefix of the fixture's policy names
}

func hourly(name string, quota int64) *core.Policy {
	return core.MustPolicy(name, core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: quota, Window: time.Hour}})
}

func newOverrideFixture(t *testing.T, newStore NewStore, opts core.OverrideOptions) *overrideFixture {
	t.Helper()
	f := &overrideFixture{clk: NewClock(T0), table: map[string]*core.Policy{}, name: fmt.Sprintf("ovr%d-", policySeq.Add(1))}
	opts.OnError = func(context.Context, error) { f.errs.Add(1) }
	o, err := core.NewOverrides(hourly(f.name+"default", 2), f.provide, opts, core.WithStore(newStore(t)), core.WithClock(f.clk))
	requireNoError(t, err)
	f.o = o
	return f
}

func (f *overrideFixture) provide(ctx context.Context, key string) (*core.Policy, bool, error) {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctxErr && ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if f.panic {
		panic("provider bug")
	}
	if f.fail != nil {
		return nil, false, f.fail
	}
	p, ok := f.table[key]
	return p, ok, nil
}

func (f *overrideFixture) set(key string, p *core.Policy) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p == nil {
		delete(f.table, key)
	} else {
		f.table[key] = p
	}
}

// admit drains key on the Overrides (at most 100) and returns how many
// passed.
func (f *overrideFixture) admit(t *testing.T, key string) int64 {
	t.Helper()
	n := int64(0)
	for range 100 {
		r, err := f.o.Allow(context.Background(), key)
		requireNoError(t, err)
		if !r.Allowed {
			break
		}
		n++
	}
	return n
}

func runOverrideLimits(t *testing.T, newStore NewStore) {
	f := newOverrideFixture(t, newStore, core.OverrideOptions{TTL: time.Minute})
	f.set("acme", hourly(f.name+"acme", 5))
	f.set("globex", hourly(f.name+"big", 7))
	f.set("initech", hourly(f.name+"big", 7))
	assertEqual(t, int64(5), f.admit(t, "acme"), "acme's own limit")
	assertEqual(t, int64(7), f.admit(t, "globex"), "globex's own limit")
	assertEqual(t, int64(7), f.admit(t, "initech"), "one policy, keys apart")
	assertEqual(t, int64(2), f.admit(t, "other"), "the default")
	r, err := f.o.Peek(context.Background(), "acme", 1)
	requireNoError(t, err)
	assertEqual(t, f.name+"acme", r.Policy().Name())
	// acme without its override (once cached answers expire) is decided by
	// the default on the default's state, which its override never touched.
	f.set("acme", nil)
	f.clk.Advance(time.Minute)
	assertEqual(t, int64(2), f.admit(t, "acme"), "the default's own state")
	assertEqual(t, int64(0), f.errs.Load())
}

func runOverrideCache(t *testing.T, newStore NewStore) {
	f := newOverrideFixture(t, newStore, core.OverrideOptions{TTL: 10 * time.Second, NegativeTTL: 20 * time.Second, MaxKeys: 32})
	f.set("acme", hourly(f.name+"acme", 50))
	for range 10 {
		_, err := f.o.Allow(context.Background(), "acme")
		requireNoError(t, err)
		_, err = f.o.Allow(context.Background(), "none")
		requireNoError(t, err)
	}
	assertEqual(t, int64(2), f.calls.Load(), "one call per key within its TTL")
	f.clk.Advance(10 * time.Second)
	f.admit(t, "acme")
	f.admit(t, "none")
	assertEqual(t, int64(3), f.calls.Load(), "the override expired, the absence not yet")
	f.clk.Advance(10 * time.Second)
	f.admit(t, "none")
	assertEqual(t, int64(4), f.calls.Load(), "the absence expired")
	// A flood of distinct keys is cached within MaxKeys and never refused.
	for i := range 500 {
		r, err := f.o.Allow(context.Background(), fmt.Sprint("flood", i))
		requireNoError(t, err)
		assertTrue(t, r.Allowed)
	}
	// acme's override is still decided (cached or asked again).
	r, err := f.o.Peek(context.Background(), "acme", 1)
	requireNoError(t, err)
	assertEqual(t, f.name+"acme", r.Policy().Name())
}

func runOverrideFaults(t *testing.T, newStore NewStore) {
	f := newOverrideFixture(t, newStore, core.OverrideOptions{TTL: time.Minute, ErrorTTL: time.Second, MaxPolicies: 1})
	f.set("acme", hourly(f.name+"acme", 5))
	f.fail = errors.New("directory down")
	assertEqual(t, int64(2), f.admit(t, "acme"), "a failing provider: the default decides, never unlimited")
	assertEqual(t, int64(1), f.calls.Load(), "the failure is cached")
	assertEqual(t, int64(1), f.errs.Load(), "and reported")
	f.clk.Advance(time.Second)
	f.mu.Lock()
	f.fail, f.panic = nil, true
	f.mu.Unlock()
	assertEqual(t, int64(0), f.admit(t, "acme"), "a panicking provider: the default decides (acme has used it)")
	assertEqual(t, int64(2), f.errs.Load())
	f.clk.Advance(time.Second)
	f.mu.Lock()
	f.panic = false
	f.mu.Unlock()
	assertEqual(t, int64(5), f.admit(t, "acme"), "the provider back: acme's own limit")
	// Unusable overrides: one policy more than MaxPolicies is refused (the
	// default may allow such a key more than its override would), and so
	// for ErrorTTL. A policy named as the default with other limits is the
	// default, with its own limits (the provider's may be an older copy of
	// them). A nil policy is the provider's fault: the default decides.
	f.set("impostor", hourly(f.name+"default", 1))
	f.set("second", hourly(f.name+"second", 1))
	f.mu.Lock()
	f.table["nil"] = nil
	f.mu.Unlock()
	for range 3 {
		_, err := f.o.Allow(context.Background(), "second")
		requireErrorIs(t, err, core.ErrInvalidConfig, "an override that cannot be decided is refused")
		requireErrorIs(t, err, core.ErrOverride, "second")
	}
	assertEqual(t, int64(2), f.admit(t, "impostor"), "a policy named as the default is the default")
	assertEqual(t, int64(2), f.admit(t, "nil"))
	assertEqual(t, int64(5), f.errs.Load())
	// The default's own policy as an override is the default.
	f.set("same", hourly(f.name+"default", 2))
	assertEqual(t, int64(2), f.admit(t, "same"))
	assertEqual(t, int64(5), f.errs.Load())
}

func runOverrideChange(t *testing.T, newStore NewStore) {
	f := newOverrideFixture(t, newStore, core.OverrideOptions{TTL: time.Second})
	f.set("acme", hourly(f.name+"acme", 5))
	assertEqual(t, int64(5), f.admit(t, "acme"))
	f.set("acme", hourly(f.name+"acme", 8))
	f.clk.Advance(time.Second)
	assertEqual(t, int64(3), f.admit(t, "acme"), "raised on the kept count: 8 less the 5 taken")
	f.set("acme", core.MustPolicy(f.name+"acme", core.Limit{Name: "hour", Algorithm: core.GCRA{Rate: core.PerHour(20)}}))
	f.clk.Advance(time.Second)
	assertEqual(t, int64(20), f.admit(t, "acme"), "a change SetPolicy refuses starts the name afresh")
	// A change of the shadow limits alone is a change too.
	f.set("acme", core.MustPolicy(f.name+"acme", core.Limit{Name: "hour", Algorithm: core.GCRA{Rate: core.PerHour(20)}},
		core.Limit{Name: "trial", Algorithm: core.GCRA{Rate: core.PerHour(5)}, Shadow: true}))
	f.clk.Advance(time.Second)
	r, err := f.o.Peek(context.Background(), "acme", 1)
	requireNoError(t, err)
	assertEqual(t, 1, len(r.ShadowLimits()), "the shadow limit added")
	assertEqual(t, int64(0), f.errs.Load())
}

func runOverrideConcurrent(t *testing.T, newStore NewStore) {
	f := newOverrideFixture(t, newStore, core.OverrideOptions{TTL: time.Hour})
	quotas := map[string]int64{"a": 3, "b": 5, "c": 0, "d": 9} // c: the default (2)
	for k, q := range quotas {
		if q > 0 {
			f.set(k, hourly(f.name+k, q))
		}
	}
	quotas["c"] = 2
	var mu sync.Mutex
	passed := map[string]int64{}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 40 {
				k := string(rune('a' + (w+i)%4))
				r, err := f.o.Allow(context.Background(), k)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					mu.Lock()
					passed[k]++
					mu.Unlock()
				}
			}
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
	for k, q := range quotas {
		assertEqual(t, q, passed[k], "key %s: exactly its limit", k)
	}
	assertEqual(t, int64(4), f.calls.Load(), "one provider call per key")
}

func runOverrideRefund(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	f := newOverrideFixture(t, newStore, core.OverrideOptions{TTL: time.Hour})
	f.set("acme", hourly(f.name+"acme", 5))
	r, err := f.o.Allow(ctx, "acme")
	requireNoError(t, err)
	requireTrue(t, r.Allowed)
	assertEqual(t, int64(4), f.admit(t, "acme"))
	_, err = f.o.Refund(ctx, "acme", r)
	requireNoError(t, err)
	assertEqual(t, int64(1), f.admit(t, "acme"), "given back to the override's limiter")
	other, err := core.NewLimiter(hourly(f.name+"acme", 5), core.WithClock(f.clk))
	requireNoError(t, err)
	foreign, err := other.Allow(ctx, "acme")
	requireNoError(t, err)
	_, err = f.o.Refund(ctx, "acme", foreign)
	assertErrorIs(t, err, core.ErrRefundForeign)
	_, err = f.o.Refund(ctx, "acme", core.Result{})
	assertErrorIs(t, err, core.ErrNotTaken)
}

// runOverrideStale: a key is never moved off its override by a failure it
// can cause or wait for. A key whose override is stricter than the default
// (a tenant held to less) keeps its override's limiter when the provider
// fails once its cached answer has expired; and a caller that goes away
// while the provider is asked (the provider then fails with the caller's
// context error) gets that error, cached for no one: the key's next caller
// asks again.
func runOverrideStale(t *testing.T, newStore NewStore) {
	f := newOverrideFixture(t, newStore, core.OverrideOptions{TTL: time.Minute, ErrorTTL: time.Second})
	f.set("abuser", hourly(f.name+"strict", 1))
	assertEqual(t, int64(1), f.admit(t, "abuser"), "its own limit")
	f.clk.Advance(time.Minute)
	f.mu.Lock()
	f.fail = errors.New("directory down")
	f.mu.Unlock()
	assertEqual(t, int64(0), f.admit(t, "abuser"), "a failing provider keeps the key's last override, not the default's fresh 2")
	assertEqual(t, int64(1), f.errs.Load(), "the failure is reported")
	f.mu.Lock()
	f.fail, f.ctxErr = nil, true
	f.mu.Unlock()
	f.set("newcomer", hourly(f.name+"strict2", 1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.o.Peek(ctx, "newcomer", 1)
	assertErrorIs(t, err, context.Canceled)
	assertEqual(t, int64(1), f.admit(t, "newcomer"), "its own limit: the gone caller's failure was not cached")
	assertEqual(t, int64(1), f.errs.Load(), "a caller gone is no failure of the provider")
}
