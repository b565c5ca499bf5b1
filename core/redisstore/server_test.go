package redisstore_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// server is a redis-server this test started, on 127.0.0.1.
type server struct {
	t    testing.TB
	port int
	args []string
	cmd  *exec.Cmd
}

// redisBinary returns redis-server's path, skipping the test when it is
// missing (failing it when CI=true).
func redisBinary(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server is not on PATH, and CI=true requires the Redis tests to run: %v", err)
		}
		t.Skipf("redis-server is not on PATH (%v): skipping the Redis tests (set CI=true to make this a failure)", err)
	}
	return path
}

// freePort returns a loopback port nothing listens on.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// startRedis starts a redis-server on a free loopback port with the extra
// arguments, waits for PING and kills it by PID at cleanup.
func startRedis(t testing.TB, extra ...string) *server {
	t.Helper()
	s := &server{t: t, port: freePort(t)}
	s.args = append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir()}, extra...)
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *server) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

func (s *server) start() {
	s.t.Helper()
	s.cmd = exec.Command(redisBinary(s.t), s.args...)
	s.cmd.Stdout, s.cmd.Stderr = nil, nil
	require.NoError(s.t, s.cmd.Start())
	c := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.kill()
			s.t.Fatalf("redis-server on %s did not answer PING within 5 s: %v", s.addr(), err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill SIGKILLs the server (by PID) and waits for it.
func (s *server) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

func (s *server) signal(sig syscall.Signal) {
	s.t.Helper()
	require.NoError(s.t, s.cmd.Process.Signal(sig))
}

// client returns a client of the server closed at cleanup, with reads
// bounded by the context.
func (s *server) client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr: s.addr(), ContextTimeoutEnabled: true, MaxRetries: -1,
		DialTimeout: 200 * time.Millisecond, ReadTimeout: time.Second, WriteTimeout: time.Second,
		PoolSize: 32,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

var _ = filepath.Join

func newClock() *coretest.Clock { return coretest.NewClock(coretest.T0) }

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// The client's own log of failed dials would drown the fault tests' output.
func init() { redis.SetLogger(quietLogger{}) }
