//go:build unix

package localfirst_test

import "syscall"

// cpuTime returns the CPU time the process used so far, in ns (user and
// system): on a loaded machine a steadier measure of a decision's cost
// than the wall clock.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
