package slogobserve_test

import (
	"log/slog"
	"testing"

	"github.com/floodgate-go/floodgate/internal/observetest"
	"github.com/floodgate-go/floodgate/observe/slogobserve"
)

// BenchmarkObserver: a hot key's decisions without an observer and with
// slogobserve's (which ignores decisions: the cost of the call).
func BenchmarkObserver(b *testing.B) {
	observetest.BenchObservers(b, observetest.Bench{Name: "slog", Observer: slogobserve.New(slog.New(slog.DiscardHandler))})
}
