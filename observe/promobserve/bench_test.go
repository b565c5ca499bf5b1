package promobserve_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/internal/observetest"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkObserver: a hot key's decisions without an observer and with
// promobserve's (a counter increment of a label set seen before).
func BenchmarkObserver(b *testing.B) {
	obs, err := promobserve.New(prometheus.NewRegistry(), promobserve.Options{})
	if err != nil {
		b.Fatal(err)
	}
	observetest.BenchObservers(b, observetest.Bench{Name: "prometheus", Observer: obs})
}
