package otelobserve

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// The providers map keeps neither a provider nor its Observer alive: the
// entries of providers gone are dropped.
func TestProvidersHeldWeakly(t *testing.T) {
	for range 10 {
		_, err := New(Options{MeterProvider: sdkmetric.NewMeterProvider()})
		require.NoError(t, err)
	}
	runtime.GC()
	runtime.GC()
	mp := sdkmetric.NewMeterProvider()
	o, err := New(Options{MeterProvider: mp})
	require.NoError(t, err)
	providers.mu.Lock()
	n := len(providers.m)
	providers.mu.Unlock()
	assert.LessOrEqual(t, n, 2, "the entries of providers gone") // this one, and the global provider's
	runtime.KeepAlive(o)
	runtime.KeepAlive(mp)
}

// A provider that is not a pointer (noop's) is not held: each New makes
// an Observer.
func TestValueProviderNotHeld(t *testing.T) {
	a, err := New(Options{MeterProvider: noop.NewMeterProvider()})
	require.NoError(t, err)
	b, err := New(Options{MeterProvider: noop.NewMeterProvider()})
	require.NoError(t, err)
	assert.NotSame(t, a, b)
}
