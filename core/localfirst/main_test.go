package localfirst_test

import (
	"flag"
	"os"
	"testing"

	"github.com/floodgate-go/floodgate/internal/redistest"
)

// TestMain lets the tests that wait (outages, black-holed rounds, dead
// Redis dials) wait together: see redistest.Parallel.
func TestMain(m *testing.M) {
	flag.Parse()
	redistest.Parallel()
	os.Exit(m.Run())
}
