//go:build !unix

package localfirst_test

// cpuTime returns 0 where the process's CPU time is not read: the
// benchmarks then report no cpu-ns/op.
func cpuTime() int64 { return 0 }
