package main

import (
	"flag"
	"os"
	"testing"

	"github.com/floodgate-go/floodgate/internal/redistest"
)

// TestMain runs up to redistest.WaitingParallel tests at once: they wait
// rather than compute, most for the server's go-redis client dialling a
// dead Redis (5 dials, 100 ms apart, at its start-up check), and 2 at once
// made the package wait those out one after another (1.6 s; 0.7 s at 8).
func TestMain(m *testing.M) {
	flag.Parse()
	redistest.Parallel()
	os.Exit(m.Run())
}
