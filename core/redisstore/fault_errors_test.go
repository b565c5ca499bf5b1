package redisstore_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRedis is a RESP2 server on loopback answering the handshake, PING
// and FUNCTION LOAD, and every FCALL, EVALSHA or EVAL with reply (raw
// RESP). It counts the script calls.
type fakeRedis struct {
	ln    net.Listener
	reply atomic.Pointer[string]
	calls atomic.Int64
	wg    sync.WaitGroup

	mu    sync.Mutex
	conns []net.Conn // closed at cleanup, whoever's cleanup runs first
}

func startFake(t *testing.T, reply string) *fakeRedis {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := &fakeRedis{ln: ln}
	f.reply.Store(&reply)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c)
			f.mu.Unlock()
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			_ = c.Close()
		}
		f.mu.Unlock()
		within.Wait(t, &f.wg, "the fake's accept loop and connections")
	})
	return f
}

func (f *fakeRedis) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		cmd, err := readCommand(r)
		if err != nil {
			return
		}
		var out string
		switch strings.ToUpper(cmd[0]) {
		case "HELLO":
			out = "-ERR unknown command 'HELLO'\r\n"
		case "PING":
			out = "+PONG\r\n"
		case "CLIENT", "SELECT":
			out = "+OK\r\n"
		case "FUNCTION":
			out = "$2\r\nfg\r\n"
		case "CONFIG":
			out = "-ERR unknown command 'CONFIG'\r\n"
		case "FCALL", "EVALSHA", "EVAL":
			f.calls.Add(1)
			out = *f.reply.Load()
		default:
			out = "-ERR unknown command '" + cmd[0] + "'\r\n"
		}
		if _, err := io.WriteString(c, out); err != nil {
			return
		}
	}
}

// fakeClient is a client of the fake server f that neither retries (the
// tests count the store's own calls) nor gives up on a reply a loaded
// machine is slow to deliver (go-redis's 3 s ReadTimeout would take it for
// a fault and send another call).
func fakeClient(t *testing.T, f *fakeRedis) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: f.ln.Addr().String(), MaxRetries: -1,
		DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// readCommand reads one RESP array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return nil, fmt.Errorf("not an array: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, n)
	for range n {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(line[1:]))
		if err != nil {
			return nil, err
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		out = append(out, string(b[:size]))
	}
	return out, nil
}

// TestErrorReplyFaults: each error reply of a Redis that cannot write now
// is a fault: with FailLocal the decision is made locally (it answered
// with an error before: 503), with FailClosed it fails with
// ErrUnavailable; the breaker opens (at once, or after Options.Failures in
// a row for a Cluster slot's replies), logged once.
func TestErrorReplyFaults(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{
		"READONLY You can't write against a read only replica.",
		"OOM command not allowed when used memory > 'maxmemory'.",
		"LOADING Redis is loading the dataset in memory",
		"BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
		"CLUSTERDOWN The cluster is down",
		"TRYAGAIN Multiple keys request during rehashing of slot",
		"MOVED 3999 127.0.0.1:6381",
		"ASK 3999 127.0.0.1:6381",
		"MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
	} {
		class := strings.Fields(reply)[0]
		t.Run(class, func(t *testing.T) {
			t.Parallel()
			f := startFake(t, "-"+reply+"\r\n")
			// go-redis retries some of these replies itself (MaxRetries):
			// none here, to count the store's own calls.
			c := fakeClient(t, f)
			// No deadline a loaded machine could reach: a decision that
			// missed it would count as a fault without opening the breaker
			// at once, and the next decision would make a second call.
			local, logs := faultStore(t, c, redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 0.5, ProbeInterval: time.Hour, Timeout: noDeadline})
			closed, _ := faultStore(t, c, redisstore.Options{ProbeInterval: time.Hour, Timeout: noDeadline})
			pol := core.MustPolicy("e", core.Limit{Name: "e", Algorithm: core.FixedWindow{Quota: 4, Window: time.Hour, Anchored: true}})
			l := faultLimiter(t, local, pol)
			admitted := 0
			for range 4 {
				r, err := l.Allow(context.Background(), "k")
				require.NoError(t, err, "decided locally")
				if r.Allowed {
					admitted++
				}
			}
			require.Equal(t, 2, admitted, "the local share")
			require.True(t, local.Down())
			require.Equal(t, 1, logs.count("switching"))
			switch class {
			case "TRYAGAIN", "MOVED", "ASK":
				// About one Cluster slot: a blip while Redis answers
				// anything else; a storm opens the breaker after
				// Options.Failures (3) of them in a row.
				require.EqualValues(t, 3, f.calls.Load(), "the breaker opened at the third slot reply in a row")
			default:
				require.EqualValues(t, 1, f.calls.Load(), "the breaker opened at the first fault reply")
			}
			_, err := faultLimiter(t, closed, pol).Allow(context.Background(), "k")
			require.ErrorIs(t, err, redisstore.ErrUnavailable)
		})
	}
}

// TestWrongType: a key of the store holding another type is a
// misconfiguration, not an outage: an error wrapping ErrKeyConflict (never
// an admission) with FailClosed and FailLocal, logged once; FailOpen
// admits; the store stays on Redis.
func TestWrongType(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	pol := core.MustPolicy("wt", core.Limit{Name: "wt", Algorithm: core.FixedWindow{Quota: 4, Window: time.Hour, Anchored: true}})
	for _, mode := range []redisstore.FailureMode{redisstore.FailClosed, redisstore.FailLocal, redisstore.FailOpen} {
		s, logs := faultStore(t, c, redisstore.Options{FailureMode: mode, LocalShare: 1, Prefix: fmt.Sprintf("wt%d:", mode), Timeout: noDeadline})
		l := faultLimiter(t, s, pol)
		_, err := l.Allow(ctx, "victim")
		require.NoError(t, err)
		keys, err := c.Keys(ctx, fmt.Sprintf("wt%d:*", mode)).Result()
		require.NoError(t, err)
		require.Len(t, keys, 1)
		require.NoError(t, c.Del(ctx, keys[0]).Err())
		require.NoError(t, c.LPush(ctx, keys[0], "x").Err())
		for range 3 {
			r, err := l.Allow(ctx, "victim")
			if mode == redisstore.FailOpen {
				require.NoError(t, err)
				require.True(t, r.Allowed)
				continue
			}
			require.ErrorIs(t, err, redisstore.ErrKeyConflict)
			require.NotErrorIs(t, err, redisstore.ErrUnavailable)
			require.False(t, r.Allowed)
		}
		r, err := l.Allow(ctx, "other")
		require.NoError(t, err, "other keys are decided on Redis")
		require.True(t, r.Allowed)
		require.False(t, s.Down())
		require.EqualValues(t, 3, s.Stats().KeyConflicts)
		require.Equal(t, 1, logs.count("WRONGTYPE"))
	}
}

// TestNoScript: a function or script Redis lost is loaded again and the
// decision retried once; one that stays missing is a fault, retried once
// only.
func TestNoScript(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	for _, noFn := range []bool{false, true} {
		s, _ := faultStore(t, c, redisstore.Options{NoFunctions: noFn, Prefix: fmt.Sprintf("ns%v:", noFn), Timeout: noDeadline})
		l := faultLimiter(t, s, wide)
		for i := range 3 {
			require.NoError(t, c.FunctionFlush(ctx).Err())
			require.NoError(t, c.ScriptFlush(ctx).Err())
			_, err := l.Allow(ctx, fmt.Sprint(i))
			require.NoError(t, err)
		}
		require.False(t, s.Down())
	}
	f := startFake(t, "-NOSCRIPT No matching script. Please use EVAL.\r\n")
	s, _ := faultStore(t, fakeClient(t, f), redisstore.Options{NoFunctions: true, FailureMode: redisstore.FailOpen, ProbeInterval: time.Hour, Timeout: noDeadline})
	r, err := faultLimiter(t, s, wide).Allow(ctx, "k")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	require.EqualValues(t, 2, f.calls.Load(), "one EVALSHA, one EVAL")
	require.True(t, s.Down())
}

// TestRealFaultReplies: a real Redis at maxmemory (OOM) and a real replica
// (READONLY): FailLocal decides locally instead of answering 503.
func TestRealFaultReplies(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"OOM", "READONLY"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			c := srv.Client(t)
			ctx := context.Background()
			s, _ := faultStore(t, c, redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 1, ProbeInterval: time.Hour, Timeout: noDeadline})
			l := faultLimiter(t, s, wide)
			_, err := l.Allow(ctx, "before")
			require.NoError(t, err)
			require.False(t, s.Down())
			if fault == "OOM" {
				require.NoError(t, c.ConfigSet(ctx, "maxmemory", "1").Err())
			} else {
				// A master that never answers (port 1: no test listens there).
				require.NoError(t, c.Do(ctx, "REPLICAOF", "127.0.0.1", "1").Err())
			}
			r, err := l.Allow(ctx, "after")
			require.NoError(t, err)
			assert.True(t, r.Allowed)
			assert.True(t, s.Down())
			assert.Positive(t, s.Stats().Faults)
		})
	}
}
