//go:build !linux

package redistest

import "syscall"

// sysProcAttr is nil outside Linux: the server is killed by PID at the
// test's cleanup only.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// pooling: nothing would kill the pool's idle servers when their test
// process ends (see pooled).
const pooling = false
