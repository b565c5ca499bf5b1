package promobserve_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackNewRefusesHistogramOptionsThatPanicLater: client_golang makes
// a HistogramVec's children lazily, and checks their buckets (strictly
// increasing) and const labels (no "le") only then, by panicking. Before,
// New accepted Buckets {0.5, 0.1} and ConstLabels {"le": …} silently, and
// the first decision that carried a latency (any Redis decision) panicked
// in Decided, on the request's goroutine: "histogram buckets must be in
// increasing order: 0.500000 >= 0.100000". Now New refuses them with
// core.ErrInvalidConfig, and nothing a valid Observer is given panics.
func TestAttackNewRefusesHistogramOptionsThatPanicLater(t *testing.T) {
	for name, opts := range map[string]promobserve.Options{
		"decreasing": {Buckets: []float64{.5, .1}},
		"duplicate":  {Buckets: []float64{.1, .1}},
		"const le":   {ConstLabels: prometheus.Labels{"le": "x"}},
	} {
		t.Run(name, func(t *testing.T) {
			var obs *promobserve.Observer
			var err error
			require.NotPanics(t, func() { obs, err = promobserve.New(prometheus.NewRegistry(), opts) })
			if err == nil {
				assert.NotPanics(t, func() {
					obs.Decided(context.Background(), core.Decision{Policy: "p", LimitName: "l", Store: "redis", Latency: time.Millisecond})
				}, "New accepted %+v, and a decision with a latency panics", opts)
			}
			require.ErrorIs(t, err, core.ErrInvalidConfig)
		})
	}
	// Valid ones stay accepted: +Inf last (implicit), an empty list (the defaults).
	for _, b := range [][]float64{{.1, 1, 2}, {.1, 1, inf()}, {}} {
		obs, err := promobserve.New(prometheus.NewRegistry(), promobserve.Options{Buckets: b})
		require.NoError(t, err, "%v", b)
		require.NotPanics(t, func() {
			obs.Decided(context.Background(), core.Decision{Policy: "p", LimitName: "l", Store: "redis", Latency: time.Millisecond})
		})
	}
}

func inf() float64 { var z float64; return 1 / z }
