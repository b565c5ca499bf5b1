// Package within bounds the waits of floodgate's tests: a channel
// receive, a WaitGroup, a child process, a state polled for. A wait that
// a test bug would make endless fails the test at once with a message
// saying what did not happen, instead of hanging until go test's timeout.
// It is internal to floodgate.
//
// The bound, [Bound], is one no loaded machine reaches: no verdict
// depends on it, it only turns a hang into a failure.
package within

import (
	"bufio"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Bound is how long a wait may last before it fails the test: two
// minutes, for waits a correct build ends in milliseconds or seconds.
const Bound = 2 * time.Minute

// Recv receives from ch, failing t when nothing comes within [Bound];
// what names what the value stands for, for the failure message.
func Recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	timer := time.NewTimer(Bound)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("within: %s did not come within %v", what, Bound)
		var zero T
		return zero
	}
}

// Wait waits for wg, failing t when it has not ended within [Bound];
// what names the goroutines waited for.
func Wait(t testing.TB, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(Bound)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("within: %s did not end within %v", what, Bound)
	}
}

// Until calls cond every millisecond until it reports true, failing t
// when it has not within [Bound]; what names the state awaited, for the
// failure message. It is for a state other goroutines (or another
// process) reach where no event says so: it waits for that state, and a
// test asserts what it must of the state afterwards, never of how long
// it took. cond may act as well as look (a decision that lets a
// recovering Redis be probed).
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("within: %s did not happen within %v", what, Bound)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Watch kills cmd's started process by PID unless the returned stop is
// called within [Bound]; stop reports whether it was killed. A read of
// the child's output or a cmd.Wait between the two then ends (EOF, or the
// kill's exit status) instead of hanging on a child that never answers
// or never exits.
func Watch(cmd *exec.Cmd) (stop func() (killed bool)) {
	return watch(cmd, Bound)
}

// watch is Watch with bound d.
func watch(cmd *exec.Cmd, d time.Duration) (stop func() (killed bool)) {
	var killed atomic.Bool
	timer := time.AfterFunc(d, func() {
		killed.Store(true)
		_ = cmd.Process.Kill()
	})
	return func() bool {
		timer.Stop()
		return killed.Load()
	}
}

// WaitProcess waits for cmd's started process to exit, like cmd.Wait,
// killing it and failing t when it has not exited within [Bound]; what
// names the process.
func WaitProcess(t testing.TB, cmd *exec.Cmd, what string) error {
	t.Helper()
	stop := Watch(cmd)
	err := cmd.Wait()
	if stop() {
		t.Fatalf("within: %s (pid %d) did not exit within %v: killed", what, cmd.Process.Pid, Bound)
	}
	return err
}

// Line reads a line from r, through its '\n', as r.ReadString does,
// failing t when it has not come within [Bound]; what names the line.
// The read goes on in the background after such a failure: r is the
// test's to drop.
func Line(t testing.TB, r *bufio.Reader, what string) (string, error) {
	t.Helper()
	type read struct {
		line string
		err  error
	}
	c := make(chan read, 1)
	go func() {
		line, err := r.ReadString('\n')
		c <- read{line, err}
	}()
	got := Recv(t, c, what)
	return got.line, got.err
}
