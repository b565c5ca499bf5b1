package redistest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A redis-server costs tens of milliseconds of CPU to start and stop (a
// fork of the test process, the server's start, the wait for it), and
// the suite started ~320 of them. A server started without extra arguments goes,
// at the end of a test that passed, back to its test process's pool,
// emptied and as it was started, and [Start] hands it to a later test
// rather than start one: the same state as a new server for every test
// that a new server's state could tell apart, or the server is not
// reused. It is not reused:
//   - when its test failed, killed it, restarted it or signalled it;
//   - when emptying it fails (a script still running, a server gone);
//   - when its configuration, its users or its persistence differ from
//     what they were when it started (a test's CONFIG SET, ACL SETUSER,
//     BGSAVE or REPLICAOF);
//   - when its function engine holds more than [poolFunctionMemory] once
//     flushed (FUNCTION FLUSH leaves it to Lua's collector);
//   - outside Linux, where nothing would kill the pool's idle servers
//     when the test process ends (PR_SET_PDEATHSIG).
//
// Emptied means: every client connection closed, pauses lifted, every
// key, function and cached script gone, statistics reset (INFO stats and
// commandstats, errorstats, the slow log, latency and the ACL log).
// What is not reset, and a test that needs it passes extra arguments to
// [Start] to get a server of its own: the server's process (its PID, its
// uptime, its client ids, which keep counting, its CPU time), its
// directory, gone once it has started, so that a save fails, and a few
// INFO fields that CONFIG RESETSTAT leaves: used_memory_peak,
// rdb_changes_since_last_save, the replication ids after a REPLICAOF
// undone, and used_memory_vm_functions, up to [poolFunctionMemory] more
// than a new server's.
//
// A test that leaves a connection of its own to the server after its end
// (a store it never closed) is the one risk: a connection is closed when
// the server is emptied, and one that the leaking code dials again could
// touch the next test's keys. Every store and client of these tests is
// closed at its test's cleanup, which runs before the server's.

// poolIdle bounds the idle servers of a test process: as many as its
// Redis tests run at once (see [Parallel]).
const poolIdle = WaitingParallel

var idle struct {
	sync.Mutex
	servers []*Server
}

// pooled is the pool state of a reusable server: what it was when it
// started, and whether a test has spoiled it for reuse.
type pooled struct {
	mu      sync.Mutex
	spoiled bool
	base    baseline
}

// baseline is what a test may change of a server and emptying cannot
// reset, read when the server started.
type baseline struct {
	config map[string]string // CONFIG GET *
	users  []string          // ACL LIST
	saves  string            // INFO persistence rdb_saves
}

// differs returns why b, read from an emptied server, is not the
// server's baseline, or nil.
func (base baseline) differs(b baseline) error {
	switch {
	case !maps.Equal(b.config, base.config):
		return errors.New("its configuration changed")
	case !slices.Equal(b.users, base.users):
		return errors.New("its users changed")
	case b.saves != base.saves:
		return errors.New("a save was made")
	}
	return nil
}

// reuse returns an idle server of the pool for t, or nil when there is
// none.
func reuse(t testing.TB) *Server {
	for {
		p := takeIdle()
		if p == nil {
			return nil
		}
		if err := p.vacant(); err != nil {
			t.Logf("redistest: the server on %s is not reused: %v", p.Addr(), err)
			p.kill()
			continue
		}
		return p.handOver(t)
	}
}

// takeIdle takes the pool's last idle server, or returns nil.
func takeIdle() *Server {
	idle.Lock()
	defer idle.Unlock()
	n := len(idle.servers)
	if n == 0 {
		return nil
	}
	p := idle.servers[n-1]
	idle.servers = idle.servers[:n-1]
	return p
}

// handOver returns idle server p as t's.
func (p *Server) handOver(t testing.TB) *Server {
	// A new Server for t: a handle the previous test kept cannot kill
	// or signal the server t has now.
	s := &Server{t: t, port: p.port, dir: p.dir, args: p.args, cmd: p.cmd, pool: &pooled{base: p.pool.base}}
	p.cmd = nil
	t.Cleanup(s.end)
	return s
}

// spoil marks s as no longer reusable.
func (s *Server) spoil() {
	if s.pool != nil {
		s.pool.mu.Lock()
		s.pool.spoiled = true
		s.pool.mu.Unlock()
	}
}

// end is s's cleanup at the end of its test: back to the pool when it can
// be reused, killed otherwise.
func (s *Server) end() {
	if s.pool == nil || s.cmd == nil || s.t.Failed() {
		s.kill()
		return
	}
	s.pool.mu.Lock()
	spoiled := s.pool.spoiled
	s.pool.mu.Unlock()
	if spoiled {
		s.kill()
		return
	}
	if err := s.empty(); err != nil {
		s.t.Logf("redistest: the server on %s is not reused: %v", s.Addr(), err)
		s.kill()
		return
	}
	idle.Lock()
	defer idle.Unlock()
	if len(idle.servers) >= poolIdle {
		s.kill()
		return
	}
	idle.servers = append(idle.servers, s)
}

// emptyTimeout bounds emptying a server: a server that takes longer is
// killed rather than reused.
const emptyTimeout = 10 * time.Second

// adminName names the pool's own connections.
const adminName = "redistest-pool"

// admin returns a client for the pool's own commands on s.
func (s *Server) admin() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialerRetries: 1, PoolSize: 1,
		DialTimeout: emptyTimeout, ReadTimeout: emptyTimeout, WriteTimeout: emptyTimeout, ClientName: adminName})
}

// vacant returns an error when a client other than the pool's is
// connected to idle server s: code of a test that has ended dialled it
// again after it was emptied, and could touch the next test's keys.
func (s *Server) vacant() error {
	c := s.admin()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), emptyTimeout)
	defer cancel()
	list, err := c.ClientList(ctx).Result()
	if err != nil {
		return fmt.Errorf("CLIENT LIST: %w", err)
	}
	for line := range strings.Lines(list) {
		if !strings.Contains(line, " name="+adminName+" ") {
			return fmt.Errorf("a client of an ended test is connected: %s", strings.TrimSpace(line))
		}
	}
	return nil
}

// snapshot records what s is when it starts, for empty to compare with.
func (p *pooled) snapshot(s *Server) error {
	c := s.admin()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), emptyTimeout)
	defer cancel()
	var err error
	if p.base, _, err = state(ctx, c); err != nil {
		return fmt.Errorf("reading the new server's state: %w", err)
	}
	return nil
}

// state reads the server's baseline and its function engine's memory
// (INFO used_memory_vm_functions, 0 without it).
func state(ctx context.Context, c *redis.Client) (b baseline, functionMemory int64, err error) {
	if b.config, err = c.ConfigGet(ctx, "*").Result(); err != nil {
		return b, 0, fmt.Errorf("CONFIG GET: %w", err)
	}
	if b.users, err = c.Do(ctx, "ACL", "LIST").StringSlice(); err != nil {
		return b, 0, fmt.Errorf("ACL LIST: %w", err)
	}
	info, err := c.InfoMap(ctx, "persistence", "replication", "memory").Result()
	if err != nil {
		return b, 0, fmt.Errorf("INFO: %w", err)
	}
	if role := info["Replication"]["role"]; role != "master" {
		return b, 0, fmt.Errorf("role %q", role)
	}
	pers := info["Persistence"]
	if pers["rdb_bgsave_in_progress"] != "0" || pers["aof_rewrite_in_progress"] != "0" || pers["rdb_last_bgsave_status"] != "ok" {
		return b, 0, errors.New("a save was made")
	}
	b.saves = pers["rdb_saves"]
	if v, ok := info["Memory"]["used_memory_vm_functions"]; ok {
		if functionMemory, err = strconv.ParseInt(v, 10, 64); err != nil {
			return b, 0, fmt.Errorf("INFO used_memory_vm_functions %q: %w", v, err)
		}
	}
	return b, functionMemory, nil
}

// poolFunctionMemory bounds the function engine's memory (INFO
// used_memory_vm_functions) of a server going back to the pool, ~33 KB
// on a new server. FUNCTION FLUSH leaves the deleted libraries' memory to
// the engine's Lua collector, which runs only as the engine allocates
// again: up to 3 MB of the redisstore suite's was left once flushed.
const poolFunctionMemory = 1 << 20

// empty closes the server's other connections and empties it (see
// pooled), or returns why it cannot be reused.
func (s *Server) empty() error {
	c := s.admin()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), emptyTimeout)
	defer cancel()
	cmds := [][]any{
		{"CLIENT", "UNPAUSE"},
		{"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"},
		{"CLIENT", "KILL", "TYPE", "pubsub", "SKIPME", "yes"},
		{"FUNCTION", "FLUSH", "SYNC"},
		{"SCRIPT", "FLUSH", "SYNC"},
		{"FLUSHALL", "SYNC"},
		{"ACL", "LOG", "RESET"},
		{"SLOWLOG", "RESET"},
		{"LATENCY", "RESET"},
	}
	for _, cmd := range cmds {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			return fmt.Errorf("%s: %w", strings.Trim(fmt.Sprint(cmd), "[]"), err)
		}
	}
	b, vm, err := state(ctx, c)
	if err != nil {
		return err
	}
	if err := s.pool.base.differs(b); err != nil {
		return err
	}
	if vm > poolFunctionMemory {
		return fmt.Errorf("its function engine holds %d bytes once flushed", vm)
	}
	// Last, so that the commands above are not counted.
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		return fmt.Errorf("CONFIG RESETSTAT: %w", err)
	}
	return nil
}
