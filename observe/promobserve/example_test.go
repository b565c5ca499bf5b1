package promobserve_test

import (
	"context"
	"fmt"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func Example() {
	reg := prometheus.NewRegistry() // prometheus.DefaultRegisterer in a service
	obs, err := promobserve.New(reg, promobserve.Options{})
	if err != nil {
		panic(err)
	}
	p := core.MustPolicy("api", core.Limit{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(1), Burst: 1}})
	l, err := core.NewLimiter(p, core.WithObserver(obs), core.WithClock(coretest.NewClock(coretest.T0)))
	if err != nil {
		panic(err)
	}
	for range 3 {
		_, _ = l.Allow(context.Background(), "client-1")
	}
	n, err := testutil.GatherAndCount(reg, "floodgate_decisions_total")
	fmt.Println(n, "series", err)
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() != "floodgate_decisions_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			fmt.Println(m.GetLabel()[2].GetValue(), m.GetCounter().GetValue()) // result, count
		}
	}
	// Output:
	// 2 series <nil>
	// allowed 1
	// denied 2
}
