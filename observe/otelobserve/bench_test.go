package otelobserve_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/observetest"
	"github.com/floodgate-go/floodgate/observe/otelobserve"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func benchObserver(b *testing.B, opts otelobserve.Options) *otelobserve.Observer {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	opts.MeterProvider = mp
	obs, err := otelobserve.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	return obs
}

// BenchmarkObserver: a hot key's decisions without an observer and with
// otelobserve's recording into the SDK's meter provider (no span in the
// context).
func BenchmarkObserver(b *testing.B) {
	observetest.BenchObservers(b, observetest.Bench{Name: "otel", Observer: benchObserver(b, otelobserve.Options{})})
}

// BenchmarkObserverSpan: one decision per request span (the SDK's, always
// sampled, started and ended in each iteration), without an observer,
// with otelobserve recording metrics only (NoSpans), and recording the
// decision on the span too: the differences are what the observer costs a
// traced request.
func BenchmarkObserverSpan(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tracer := tp.Tracer("bench")
	for _, o := range []struct {
		name string
		obs  core.Observer
	}{
		{"none", nil},
		{"otel-metrics", benchObserver(b, otelobserve.Options{NoSpans: true})},
		{"otel", benchObserver(b, otelobserve.Options{})},
	} {
		b.Run(o.name, func(b *testing.B) {
			l, err := core.NewLimiter(core.MustPolicy("bench", core.Limit{Name: "bench", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 1e9}}),
				core.WithObserver(o.obs), core.WithClock(coretest.NewClock(coretest.T0)))
			if err != nil {
				b.Fatal(err)
			}
			var res core.Result
			b.ReportAllocs()
			for b.Loop() {
				ctx, span := tracer.Start(context.Background(), "request")
				_ = l.Take(ctx, "hot", 1, &res)
				span.End()
			}
		})
	}
}
