package redistest

import "syscall"

// sysProcAttr has the kernel SIGKILL the server when the thread that
// started it exits: a test process killed before its cleanup ran leaves
// no server behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// pooling: the pool's idle servers are killed with their test process
// (see pooled).
const pooling = true
