package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// A policy's limits raised while serving: the client keeps its count.
func ExampleLimiter_SetPolicy() {
	ctx := context.Background()
	clk := coretest.NewClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	hourly := func(n int64) *core.Policy {
		return core.MustPolicy("api", core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: n, Window: time.Hour}})
	}
	l, _ := core.NewLimiter(hourly(3), core.WithClock(clk))
	take := func(n int) (out []any) {
		for range n {
			r, _ := l.Allow(ctx, "client")
			out = append(out, r.Allowed)
		}
		return out
	}
	fmt.Println(take(4)...)
	if err := l.SetPolicy(hourly(5)); err != nil {
		panic(err)
	}
	fmt.Println(take(3)...)
	// A change the kept state cannot be read under is refused.
	other := core.MustPolicy("api", core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 5, Window: time.Minute}})
	fmt.Println(l.SetPolicy(other))
	// Output:
	// true true true false
	// true true false
	// core: SetPolicy: policy "api": limit "hour": the window (length and anchoring) may not change (its state is read in it): policy change not applicable to the kept state
}

// Several limiters changed together: every change checked before any is
// made, so that a refused one leaves all as they were.
func ExampleLimiter_CheckPolicy() {
	api, _ := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 100, Window: time.Hour}}))
	login, _ := core.NewLimiter(core.MustPolicy("login", core.Limit{Name: "fails", Algorithm: core.SlidingLog{Quota: 5, Window: time.Hour}}))
	changes := map[*core.Limiter]*core.Policy{
		api:   core.MustPolicy("api", core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 200, Window: time.Hour}}),
		login: core.MustPolicy("login", core.Limit{Name: "fails", Algorithm: core.SlidingLog{Quota: 10, Window: time.Hour}}),
	}
	for l, p := range changes {
		if err := l.CheckPolicy(p); err != nil {
			fmt.Println("none applied:", err)
			return
		}
	}
	for l, p := range changes {
		_ = l.SetPolicy(p)
	}
	fmt.Println("applied")
	// Output:
	// none applied: core: SetPolicy: policy "login": limit "fails": the quota (the log's length) may not change (its state is read in it): policy change not applicable to the kept state
}

// A tenant with a contract of its own: its limit comes from a provider
// (a database, a billing service), cached; every other key gets the
// default.
func ExampleOverrides() {
	ctx := context.Background()
	contracts := map[string]*core.Policy{
		"acme": core.MustPolicy("enterprise", core.Limit{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(5)}}),
	}
	provider := func(_ context.Context, tenant string) (*core.Policy, bool, error) {
		p, ok := contracts[tenant]
		return p, ok, nil
	}
	def := core.MustPolicy("standard", core.Limit{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(2)}})
	o, err := core.NewOverrides(def, provider, core.OverrideOptions{TTL: time.Minute})
	if err != nil {
		panic(err)
	}
	for _, tenant := range []string{"acme", "globex"} {
		n := 0
		for range 10 {
			if r, _ := o.Allow(ctx, tenant); r.Allowed {
				n++
			}
		}
		r, _ := o.Peek(ctx, tenant, 1)
		fmt.Println(tenant, r.Policy().Name(), n)
	}
	// Output:
	// acme enterprise 5
	// globex standard 2
}
