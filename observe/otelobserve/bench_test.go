package otelobserve_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/internal/observetest"
	"github.com/floodgate-go/floodgate/observe/otelobserve"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// BenchmarkObserver: a hot key's decisions without an observer, with
// otelobserve's recording into the SDK's meter provider ("otel"), and the
// same with a recording span in the context ("otel-span": an event and
// attributes on the span per decision; the SDK keeps at most 128 events
// per span and drops the rest, so the span does not grow).
func BenchmarkObserver(b *testing.B) {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	obs, err := otelobserve.New(otelobserve.Options{MeterProvider: mp})
	if err != nil {
		b.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider()
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("bench").Start(context.Background(), "request")
	b.Cleanup(func() { span.End() })
	observetest.BenchObservers(b,
		observetest.Bench{Name: "otel", Observer: obs},
		observetest.Bench{Name: "otel-span", Observer: obs, Ctx: ctx})
}
