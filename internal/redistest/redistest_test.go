package redistest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// TestStartKill: a started server answers on loopback with persistence
// off; Kill stops its process; Restart brings it back on the same port.
func TestStartKill(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	require.NoError(t, c.Ping(ctx).Err())
	host, _, err := net.SplitHostPort(s.Addr())
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", host)
	require.Equal(t, "redis://"+s.Addr(), s.URL())
	cfg, err := c.ConfigGet(ctx, "appendonly").Result()
	require.NoError(t, err)
	require.Equal(t, "no", cfg["appendonly"])
	cfg, err = c.ConfigGet(ctx, "save").Result()
	require.NoError(t, err)
	require.Equal(t, "", cfg["save"])
	pid := s.PID()
	require.NotZero(t, pid)
	s.Kill()
	require.Zero(t, s.PID())
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the process is gone")
	// Nothing answers on its port, unless a server of another test took
	// the port in the meantime.
	ctx2, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if info, err := c.InfoMap(ctx2, "server").Result(); err == nil {
		require.NotEqual(t, strconv.Itoa(pid), info["Server"]["process_id"], "the killed server answers")
	}
	s.Restart()
	require.NoError(t, c.Ping(ctx).Err())
}

const childEnv = "REDISTEST_CHILD"

// TestChild is run only as a child process of the tests below: it starts a
// server, prints its PID and address, then fails (fatal) or hangs until
// killed, as the environment says.
func TestChild(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("only run as a child process")
	}
	s := redistest.Start(t)
	fmt.Printf("SERVER %d %s\n", s.PID(), s.Addr())
	if mode == "fatal" {
		t.Fatal("failing on purpose")
	}
	select {} // killed by the parent
}

// child runs TestChild in mode and returns the child and the PID of the
// server it started, with that process's start time.
func child(t *testing.T, mode string) (*exec.Cmd, int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1")
	// The child's temporary directories live in this test's, so that a
	// killed child, whose cleanups never run, leaves none behind.
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// A child that never prints its SERVER line is killed: the scan then
	// ends.
	stop := within.Watch(cmd)
	defer stop()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "SERVER "); ok {
			f := strings.Fields(rest)
			require.Len(t, f, 2)
			pid, err := strconv.Atoi(f[0])
			require.NoError(t, err)
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return cmd, pid, startTime(pid) // "" if it is gone already (fatal mode)
		}
	}
	t.Fatalf("the child printed no SERVER line (killed after %v: %v): %v", within.Bound, stop(), sc.Err())
	return nil, 0, ""
}

// startTime returns field 22 of /proc/pid/stat, the process's start time,
// or "" when there is no such process.
func startTime(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	_, rest, _ := strings.Cut(string(stat), ") ") // the name may hold spaces
	if f := strings.Fields(rest); len(f) > 19 {
		return f[19]
	}
	return ""
}

// gone waits until the process pid started at started ("" for one gone
// already) is no longer live:
// absent, a zombie waiting to be reaped, or its PID reused by a process
// started later. (Whether its port still answers says nothing: a server
// of another test may have taken it.) The 30 s bound only stops a leak
// from hanging the test.
func gone(t *testing.T, pid int, started string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if started == "" || len(stat) == 0 || strings.Contains(string(stat), ") Z ") || startTime(pid) != started {
			return
		}
		require.False(t, time.Now().After(deadline), "redis-server %d still running", pid)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoServerLeftOnFatal: a test that fails with t.Fatal after Start
// leaves no redis-server running.
func TestNoServerLeftOnFatal(t *testing.T) {
	redistest.Binary(t)
	cmd, pid, started := child(t, "fatal")
	require.Error(t, within.WaitProcess(t, cmd, "the failing child test"), "the child test fails")
	gone(t, pid, started)
}

// TestNoServerLeftWhenKilled: a test process killed (SIGKILL, no cleanup
// runs) leaves no redis-server running, on Linux.
func TestNoServerLeftWhenKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("PR_SET_PDEATHSIG is Linux's")
	}
	redistest.Binary(t)
	cmd, pid, started := child(t, "hang")
	require.NoError(t, syscall.Kill(pid, 0), "the server runs")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	gone(t, pid, started)
}
