package otelobserve_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/observe/otelobserve"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// TestAttackObs37TwoObserversOneProvider: New on a MeterProvider that
// already had an Observer (one per limiter, or two components of a
// service each making one on the global provider) made a second, whose
// callback observed the same store and memory gauges with the same
// attributes: the SDK keeps one observation of a gauge per attribute set,
// the last. The Observer the Redis store reported an outage to said
// store.up 0; the other, which only saw decisions, said 1, and 1 was
// exported in each of 3 collections: the outage hidden. Two memory stores
// of one policy, one watched by each, exported 1 key of 3. Now New gives
// the Observer already recording with the provider (its options alike),
// and refuses other options.
func TestAttackObs37TwoObserversOneProvider(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	a, err := otelobserve.New(otelobserve.Options{MeterProvider: mp})
	require.NoError(t, err)
	b, err := otelobserve.New(otelobserve.Options{MeterProvider: mp})
	require.NoError(t, err)

	ctx := context.Background()
	d := core.Decision{Policy: "p", LimitName: "l", Store: "redis", Latency: time.Millisecond}
	a.Decided(ctx, d)
	b.Decided(ctx, d)
	a.StoreChanged(core.StoreEvent{Store: "redis", Instance: 1, Change: core.StoreUnreachable, Mode: "fail-closed"})
	hidden := 0
	for range 3 {
		got := collect(t, reader)
		if ints(t, got["floodgate.rate_limiting.store.up"])["store=redis"] != 0 {
			hidden++
		}
		assert.Equal(t, map[string]int64{"limit=l,policy=p,result=acquired,source=store,store=redis": 2},
			ints(t, got["floodgate.rate_limiting.requests"]))
	}
	assert.Zero(t, hidden, "collections of 3 saying redis is up while it is unreachable")

	ms1, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	ms2, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	a.WatchMemory(ms1)
	b.WatchMemory(ms2)
	p := core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.FixedWindow{Quota: 5, Window: time.Minute}})
	l1, err := core.NewLimiter(p, core.WithStore(ms1))
	require.NoError(t, err)
	l2, err := core.NewLimiter(p, core.WithStore(ms2))
	require.NoError(t, err)
	for _, k := range []string{"x", "y"} {
		_, err = l1.Allow(ctx, k)
		require.NoError(t, err)
	}
	_, err = l2.Allow(ctx, "z")
	require.NoError(t, err)
	got := collect(t, reader)
	assert.Equal(t, map[string]int64{"policy=p": 3}, ints(t, got["floodgate.rate_limiting.memory.key_count"]), "the keys of both stores")

	_, err = otelobserve.New(otelobserve.Options{MeterProvider: mp, NoSpans: true})
	require.ErrorIs(t, err, core.ErrInvalidConfig, "other options on the same provider")
	c, err := otelobserve.New(otelobserve.Options{MeterProvider: mp, Buckets: otelobserve.DefaultBuckets, MaxPolicies: otelobserve.DefaultMaxPolicies})
	require.NoError(t, err, "the defaults spelled out are the same options")
	assert.Same(t, a, c)
}
