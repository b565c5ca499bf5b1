package core_test

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the tests with the garbage collector at GOGC=400 unless
// GOGC is set. The property tests allocate ~3 GB of short-lived garbage
// (a limiter, and its table, per random schedule); collecting it at the
// default of 100 was ~15% of the package's CPU (6.1 -> 5.1 s), for a heap
// of ~130 MB instead of ~40 MB. What a test checks does not depend on
// it: allocation counts (testing.AllocsPerRun) do not change with GOGC.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
