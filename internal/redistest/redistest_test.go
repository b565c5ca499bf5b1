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
	ctx2, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	require.Error(t, c.Ping(ctx2).Err())
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

// child runs TestChild in mode and returns the child and the PID and
// address of the server it started.
func child(t *testing.T, mode string) (*exec.Cmd, int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "SERVER "); ok {
			f := strings.Fields(rest)
			require.Len(t, f, 2)
			pid, err := strconv.Atoi(f[0])
			require.NoError(t, err)
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return cmd, pid, f[1]
		}
	}
	t.Fatalf("the child printed no SERVER line: %v", sc.Err())
	return nil, 0, ""
}

// gone waits until nothing accepts connections on addr and pid is no
// longer a live process; the 30 s bound only stops a leak from hanging
// the test.
func gone(t *testing.T, pid int, addr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		// Absent, or a zombie (state Z) waiting for init to reap it.
		dead := len(stat) == 0 || strings.Contains(string(stat), ") Z ")
		if err != nil && (dead || syscall.Kill(pid, 0) == syscall.ESRCH) {
			return
		}
		require.False(t, time.Now().After(deadline), "redis-server %d on %s still running", pid, addr)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoServerLeftOnFatal: a test that fails with t.Fatal after Start
// leaves no redis-server running.
func TestNoServerLeftOnFatal(t *testing.T) {
	redistest.Binary(t)
	cmd, pid, addr := child(t, "fatal")
	require.Error(t, cmd.Wait(), "the child test fails")
	gone(t, pid, addr)
}

// TestNoServerLeftWhenKilled: a test process killed (SIGKILL, no cleanup
// runs) leaves no redis-server running, on Linux.
func TestNoServerLeftWhenKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("PR_SET_PDEATHSIG is Linux's")
	}
	redistest.Binary(t)
	cmd, pid, addr := child(t, "hang")
	require.NoError(t, syscall.Kill(pid, 0), "the server runs")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	gone(t, pid, addr)
}
