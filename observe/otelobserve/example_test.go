package otelobserve_test

import (
	"context"
	"fmt"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/observe/otelobserve"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func Example() {
	reader := sdkmetric.NewManualReader() // a periodic OTLP reader in a service
	obs, err := otelobserve.New(otelobserve.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		panic(err)
	}
	p := core.MustPolicy("api", core.Limit{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(1), Burst: 1}})
	l, err := core.NewLimiter(p, core.WithObserver(obs), core.WithClock(coretest.NewClock(coretest.T0)))
	if err != nil {
		panic(err)
	}
	// A request's span (otelhttp starts it in a service).
	spans := tracetest.NewSpanRecorder()
	ctx, span := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)).Tracer("app").Start(context.Background(), "GET /api")
	for range 2 {
		_, _ = l.Allow(ctx, "client-1")
	}
	span.End()

	var rm metricdata.ResourceMetrics
	_ = reader.Collect(context.Background(), &rm)
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name == "floodgate.rate_limiting.requests" {
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				r, _ := dp.Attributes.Value(otelobserve.AttrResult)
				fmt.Println(m.Name, r.AsString(), dp.Value)
			}
		}
	}
	for _, e := range spans.Ended()[0].Events() {
		fmt.Println(e.Name, e.Attributes[2].Value.AsString())
	}
	// Unordered output:
	// floodgate.rate_limiting.requests acquired 1
	// floodgate.rate_limiting.requests rejected 1
	// floodgate.rate_limiting.decision acquired
	// floodgate.rate_limiting.decision rejected
}
