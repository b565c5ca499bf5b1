// Package redistest starts throwaway redis-server processes for tests: on
// a free 127.0.0.1 port, without persistence, killed by PID when the test
// ends or, emptied, handed to a later test of the same process. It is
// internal to floodgate.
//
// A test calling [Start] is skipped when redis-server is not on PATH, and
// fails instead when the environment has CI=true, so that CI never passes
// without having run the Redis tests.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server started by a test, listening on 127.0.0.1.
type Server struct {
	t    testing.TB
	port int
	dir  string // its --dir
	args []string
	cmd  *exec.Cmd
	// pool is the server's pool state: nil for a server started with
	// extra arguments, which is never reused (see pool.go).
	pool *pooled
}

// Binary returns redis-server's path. It skips t when redis-server is not
// on PATH, and fails it then when CI=true.
func Binary(t testing.TB) string {
	t.Helper()
	return lookPath(t, "redis-server")
}

// CLI returns redis-cli's path, skipping or failing t as [Binary] does.
func CLI(t testing.TB) string {
	t.Helper()
	return lookPath(t, "redis-cli")
}

func lookPath(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not on PATH, and CI=true requires the Redis tests to run: %v", name, err)
		}
		t.Skipf("%s is not on PATH (%v): skipping this Redis test (set CI=true to make this a failure)", name, err)
	}
	return path
}

// FreePort returns a 127.0.0.1 port nothing listened on a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: no free loopback port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatalf("redistest: %v", err)
	}
	return port
}

// Start starts a redis-server on a free 127.0.0.1 port with --save ""
// --appendonly no, its directory a temporary one, and the extra
// arguments; it returns once the server answers PING (failing t after
// 30 s) and kills it by PID at t's cleanup, which runs also when t fails
// or panics. On Linux the server is also killed when the test process
// dies (PR_SET_PDEATHSIG), so that not even a killed test leaves one.
//
// Without extra arguments, the server may be one an earlier test of the
// process used, emptied (see pooled in pool.go): a test that needs a new
// process, or a directory that stays, passes extra arguments.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	reusable := len(extra) == 0 && pooling
	if reusable {
		if s := reuse(t); s != nil {
			return s
		}
	}
	// Two servers started at once (parallel tests, or test binaries of
	// several packages) can be handed one port: the loser's redis-server
	// exits, and a PING would reach the winner's. So a start succeeds only
	// when the server answering is this one (its process_id), and is
	// retried on another port otherwise.
	for attempt := 1; ; attempt++ {
		s := &Server{t: t, port: FreePort(t)}
		dir := ""
		if reusable {
			// A reused server outlives this test and its TempDir: its
			// directory is its own, there only while it starts (see
			// pooled).
			s.pool = &pooled{}
			var err error
			if dir, err = os.MkdirTemp("", "redistest-"); err != nil {
				t.Fatalf("redistest: %v", err)
			}
		} else {
			dir = t.TempDir()
		}
		s.dir = dir
		s.args = append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", dir}, extra...)
		// Registered before the process exists: whatever fails or panics
		// from here on, the server is killed (Kill of a killed or never
		// started server does nothing).
		t.Cleanup(s.end)
		err := s.start()
		if err == nil {
			if reusable {
				err = s.pool.snapshot(s)
			}
			if err == nil {
				return s
			}
		}
		s.kill()
		if attempt == 5 {
			t.Fatalf("redistest: %v", err)
		}
	}
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// URL is the server's redis://host:port.
func (s *Server) URL() string { return "redis://" + s.Addr() }

// PID is the server process's id, 0 while it is killed.
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Restart starts the server again (same port and arguments) after Kill,
// and waits until it answers PING, failing t after 30 s or when another
// server answers on its port.
func (s *Server) Restart() {
	s.t.Helper()
	s.spoil()
	if err := s.start(); err != nil {
		s.kill()
		s.t.Fatalf("redistest: %v", err)
	}
}

// start runs redis-server with s.args and waits until it answers PING as
// itself: its INFO process_id is the PID started here.
func (s *Server) start() error {
	if s.pool != nil {
		// The server's own directory exists while it starts: it has
		// moved into it by the time it answers, and saves nothing.
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return fmt.Errorf("redistest: %w", err)
		}
		defer os.Remove(s.dir)
	}
	s.cmd = exec.Command(Binary(s.t), s.args...)
	s.cmd.Stdout, s.cmd.Stderr = nil, nil
	s.cmd.SysProcAttr = sysProcAttr()
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting redis-server: %w", err)
	}
	// A generous bound: on a loaded machine a start can take seconds, and
	// only a server that never answers should fail the test.
	deadline := time.Now().Add(30 * time.Second)
	// Until the port takes connections, bare dials: a failed go-redis
	// dial (its pool's goroutine, its logged error) cost ~4 ms of CPU, and
	// a start polled ~20 times, for ~300 starts in the suite.
	for {
		conn, err := net.DialTimeout("tcp", s.Addr(), time.Second)
		if err == nil {
			_ = conn.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server on %s did not listen within 30 s: %w", s.Addr(), err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	// One dial per poll: go-redis's default of 5 dials 100 ms apart made
	// every start wait 100 ms for a server that listens within a few.
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second})
	defer c.Close()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		info, err := c.InfoMap(ctx, "server").Result()
		cancel()
		if err == nil {
			if pid := info["Server"]["process_id"]; pid != strconv.Itoa(s.cmd.Process.Pid) {
				return fmt.Errorf("another redis-server (pid %s) answers on %s", pid, s.Addr())
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server on %s did not answer within 30 s: %w", s.Addr(), err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Kill SIGKILLs the server by PID (resuming it first if stopped) and waits
// for it; it does nothing when the server is not running.
func (s *Server) Kill() {
	s.spoil()
	s.kill()
}

// kill is Kill without spoiling the server for reuse (see pooled): for a
// server that is not reused anyway.
func (s *Server) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Signal sends sig to the server's process (SIGSTOP freezes it, SIGCONT
// resumes it).
func (s *Server) Signal(sig syscall.Signal) {
	s.t.Helper()
	s.spoil()
	if s.cmd == nil || s.cmd.Process == nil {
		s.t.Fatalf("redistest: signal %v: the server is not running", sig)
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("redistest: signal %v: %v", sig, err)
	}
}

// Client returns a client of the server, closed at t's cleanup, whose
// reads are bounded by their context. Without a deadline in the context,
// a read or write gives up after 10 s and a dial after 5 s: bounds that
// stop a frozen server from hanging a test but that a loaded machine
// never reaches, so that no test depends on timing through them. A test
// of timeouts sets its own, by context or by the store's Timeout.
//
// It neither retries a command nor dials twice for one: a dial to a
// killed server fails at once (go-redis's default dials 5 times, 100 ms
// apart, which a test of a killed server waited out at every dial).
func (s *Server) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr: s.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1, DialerRetries: 1,
		DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
		PoolSize: 32,
	})
	t.Cleanup(func() { c.Close() })
	return c
}
