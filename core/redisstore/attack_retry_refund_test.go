package redisstore_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replyDropper forwards loopback connections to a Redis and, when armed,
// closes the connection that carries the next reply instead of delivering
// it: Redis has executed the command, the client sees a broken connection.
type replyDropper struct {
	ln      net.Listener
	target  string
	armed   atomic.Bool
	dropped atomic.Int64
	wg      sync.WaitGroup
}

func startReplyDropper(t *testing.T, target string) *replyDropper {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	d := &replyDropper{ln: ln, target: target}
	var mu sync.Mutex
	var conns []net.Conn
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			d.wg.Add(2)
			go func() { // client → Redis
				defer d.wg.Done()
				_, _ = io.Copy(up, c)
				_ = up.Close()
			}()
			go func() { // Redis → client, unless armed
				defer d.wg.Done()
				defer c.Close()
				defer up.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := up.Read(buf)
					if n > 0 {
						if d.armed.CompareAndSwap(true, false) {
							d.dropped.Add(1)
							return
						}
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		within.Wait(t, &d.wg, "the dropper's accept loop and connections")
	})
	return d
}

// TestAttackRefundReplayedByClientRetry: a refund whose reply is lost after
// Redis applied it (a connection reset on the way back) must not be
// applied twice when the client retries the pipeline (go-redis's default
// MaxRetries is 3, and the store must hold whatever the client's
// options): a decision gives back at most what it took, once.
func TestAttackRefundReplayedByClientRetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t)
	d := startReplyDropper(t, srv.Addr())
	// go-redis's default retries (MaxRetries 3); reads bounded by a time no
	// loaded machine reaches (its default 3 s could send a take again, and
	// a take counted twice leaves less to refund).
	client := redis.NewClient(&redis.Options{Addr: d.ln.Addr().String(), ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, redisstore.Options{
		Timeout: 10 * time.Second, CallerClock: true, NoFunctions: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	p, err := core.Single("p", core.GCRA{Rate: core.PerHour(5)})
	require.NoError(t, err)
	clk := coretest.NewClock(time.Now())
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)

	var last core.Result
	for range 5 {
		last, err = l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, last.Allowed)
	}
	d.armed.Store(true)
	_, _ = l.Refund(ctx, "k", last) // its reply is lost; an error is fine, a replay is not
	require.Equal(t, int64(1), d.dropped.Load())
	// What Redis holds now, seen by a store of its own (the first may have
	// opened its breaker on the broken connection).
	s2, err := redisstore.New(srv.Client(t), redisstore.Options{Timeout: 10 * time.Second, CallerClock: true, NoFunctions: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s2.Close() })
	l2, err := core.NewLimiter(p, core.WithStore(s2), core.WithClock(clk))
	require.NoError(t, err)
	n := 0
	for range 10 {
		r, err := l2.Allow(ctx, "k")
		require.NoError(t, err)
		if r.Allowed {
			n++
		}
	}
	assert.LessOrEqual(t, n, 1, "one refund of one unit gave back %d", n)
}
