package main

import (
	"flag"
	"os"
	"testing"

	"github.com/floodgate-go/floodgate/internal/redistest"
)

// TestMain runs up to redistest.WaitingParallel tests at once: they wait
// rather than compute (servers starting, a dead Redis's refusals).
func TestMain(m *testing.M) {
	flag.Parse()
	redistest.Parallel()
	os.Exit(m.Run())
}
