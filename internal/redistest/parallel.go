package redistest

import (
	"flag"
	"strconv"
)

// WaitingParallel is how many tests [Parallel] lets run at once.
const WaitingParallel = 8

// Parallel lets up to [WaitingParallel] parallel tests run at once unless
// the command line gave -test.parallel (go test's default is GOMAXPROCS).
// It is for the TestMain of a package whose parallel tests mostly wait:
// on a Redis that stalls or black-holes connections, on a dead Redis's
// dials, on timeouts and breaker probes. On two cores, two at a time made
// such a package wait their bounds out one after another. Call it after
// flag.Parse and before m.Run.
func Parallel() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(WaitingParallel)); err != nil {
			panic(err)
		}
	}
}
