package redisinflight_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

const holderEnv = "FLOODGATE_INFLIGHT_HOLDER"

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestMain runs the test binary as a slot holder for TestKilledHolder
// when the environment says so, and as the tests otherwise.
func TestMain(m *testing.M) {
	if addr := os.Getenv(holderEnv); addr != "" {
		if err := hold(addr); err != nil {
			fmt.Println("holder:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	flag.Parse()
	redistest.Parallel() // the fault tests wait out stalls and bounds
	os.Exit(m.Run())
}

// hold takes every slot of key "k" (limit 8, lease 1 h, at t0 on a fake
// clock), says HELD, and waits to be killed.
func hold(addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1,
		DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	defer c.Close()
	l, err := redisinflight.New(c, 8, redisinflight.Options{Lease: time.Hour, Timeout: 10 * time.Second,
		Clock: coretest.NewClock(t0)})
	if err != nil {
		return err
	}
	for range 8 {
		if _, err := l.Acquire(context.Background(), "k"); err != nil {
			return err
		}
	}
	fmt.Println("HELD")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until killed
	return nil
}

// startHolder starts a holder process and waits until it holds its slots.
func startHolder(t *testing.T, addr string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+addr)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	t.Cleanup(func() { stdin.Close() })
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	// A holder that never says HELD is killed: the read then ends.
	stop := within.Watch(cmd)
	line, err := bufio.NewReader(out).ReadString('\n')
	require.False(t, stop(), "the holder (pid %d) did not say HELD within %v: killed", cmd.Process.Pid, within.Bound)
	require.NoError(t, err)
	require.Equal(t, "HELD\n", line, "pid "+strconv.Itoa(cmd.Process.Pid))
	return cmd
}
