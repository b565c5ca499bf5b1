package otelobserve_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/observe/otelobserve"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// TestAttackGlobalProviderBeforeAndAfterSet: one component made its
// Observer on otel's global provider before otel.SetMeterProvider (at
// init), another after it. The first Observer's instruments moved to the
// provider set, so both observed the same gauges there, and the SDK kept
// the last observation: the outage the first was told of was exported as
// store.up 1. New after the set now gives the Observer made before it.
// otel delegates its global provider once a process, so the case runs in
// a process of its own.
func TestAttackGlobalProviderBeforeAndAfterSet(t *testing.T) {
	if os.Getenv("OTELOBSERVE_GLOBAL_CASE") == "1" {
		globalProviderCase(t)
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestAttackGlobalProviderBeforeAndAfterSet$", "-test.count=1")
	cmd.Env = append(os.Environ(), "OTELOBSERVE_GLOBAL_CASE=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "PASS")
}

func globalProviderCase(t *testing.T) {
	before, err := otelobserve.New(otelobserve.Options{})
	require.NoError(t, err)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	otel.SetMeterProvider(mp)
	after, err := otelobserve.New(otelobserve.Options{})
	require.NoError(t, err)
	named, err := otelobserve.New(otelobserve.Options{MeterProvider: mp})
	require.NoError(t, err)
	assert.Same(t, before, after)
	assert.Same(t, before, named)
	_, err = otelobserve.New(otelobserve.Options{MeterProvider: mp, NoSpans: true})
	require.ErrorIs(t, err, core.ErrInvalidConfig, "other options on the same provider")

	ctx := context.Background()
	d := core.Decision{Policy: "p", LimitName: "l", Store: "redis"}
	after.Decided(ctx, d)
	before.StoreChanged(core.StoreEvent{Store: "redis", Instance: 1, Change: core.StoreUnreachable, Mode: "fail-closed"})
	for range 3 {
		got := collect(t, reader)
		assert.Equal(t, int64(0), ints(t, got["floodgate.rate_limiting.store.up"])["store=redis"], "store.up during the outage")
	}
}
