package within

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB whose Fatalf records the message and returns,
// so that a failure can be checked.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

// The bounds, on synctest's clock: a wait that never ends fails at
// once, with its message; one that ends passes without failing.
func TestBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{TB: t}
		ch := make(chan int, 1)
		ch <- 7
		assert.Equal(t, 7, Recv(r, ch, "the seven"))
		assert.Empty(t, r.failed)
		assert.Zero(t, Recv(r, ch, "the eight"))
		assert.Equal(t, "within: the eight did not come within 2m0s", r.failed)

		r = &recorder{TB: t}
		var wg sync.WaitGroup
		wg.Add(1)
		Wait(r, &wg, "the worker")
		assert.Equal(t, "within: the worker did not end within 2m0s", r.failed)
		wg.Done()
		r.failed = ""
		Wait(r, &wg, "the worker")
		assert.Empty(t, r.failed)

		r = &recorder{TB: t}
		pr, pw := io.Pipe()
		_, err := Line(r, bufio.NewReader(pr), "the greeting")
		assert.NoError(t, err)
		assert.Equal(t, "within: the greeting did not come within 2m0s", r.failed)
		_ = pw.Close() // ends the read left in the background
		synctest.Wait()
		line, err := Line(r, bufio.NewReader(strings.NewReader("hello\n")), "the greeting")
		require.NoError(t, err)
		assert.Equal(t, "hello\n", line)

		r = &recorder{TB: t}
		n := 0
		Until(r, "the third call", func() bool { n++; return n == 3 })
		assert.Equal(t, 3, n)
		assert.Empty(t, r.failed)
		Until(r, "the spring", func() bool { return false })
		assert.Equal(t, "within: the spring did not happen within 2m0s", r.failed)
	})
}

// A watched process is killed when its bound passes, and only then.
func TestWatch(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	cmd := exec.Command(sleep, "3600")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	stop := watch(cmd, 0)
	require.Error(t, cmd.Wait(), "killed")
	assert.True(t, stop())

	cmd = exec.Command(sleep, "0")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	r := &recorder{TB: t}
	require.NoError(t, WaitProcess(r, cmd, "a sleep"))
	assert.Empty(t, r.failed)
}
