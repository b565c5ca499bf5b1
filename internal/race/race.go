//go:build race

// Package race reports whether the race detector is on: under it,
// sync.Pool drops items at random, so that tests counting allocations of
// pooled paths must skip them.
package race

// Enabled reports whether the program was built with -race.
const Enabled = true
