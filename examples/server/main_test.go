package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServe starts the server on 127.0.0.1:0, waits for "listening on",
// exhausts a limit of 3 and shuts the server down.
func TestServe(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig([]string{"-addr", "127.0.0.1:0", "-limit", "3", "-window", "1h"}, io.Discard)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, pw); _ = pw.Close() }()

	line, err := within.Line(t, bufio.NewReader(pr), "the server's listening line")
	require.NoError(t, err)
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	require.True(t, ok, line)
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	client := &http.Client{Timeout: 30 * time.Second} // a bound, never reached
	for i, want := range []int{200, 200, 200, 429, 429} {
		resp, err := client.Get("http://" + addr + "/any/path")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, want, resp.StatusCode, i)
		assert.Equal(t, "3", resp.Header.Get("X-RateLimit-Limit"))
		assert.NotEmpty(t, resp.Header.Get("RateLimit-Policy"))
		if want == 200 {
			assert.Equal(t, "ok\n", string(body))
			assert.Empty(t, resp.Header.Get("Retry-After"))
		} else {
			assert.NotEmpty(t, resp.Header.Get("Retry-After"))
			assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
		}
	}
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second): // a bound, never reached
		t.Fatal("no graceful shutdown")
	}
}

// TestServeRedis runs the server on a real redis-server (on a free
// loopback port) with -store redis://: two servers sharing it enforce one
// limit of 3 together, and the limiter state is in Redis.
func TestServeRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	args := []string{"-addr", "127.0.0.1:0", "-limit", "3", "-window", "1h", "-store", srv.URL(), "-fail", "closed"}
	// The store's default 50 ms bound is for production; on a loaded test
	// machine a decision can take longer, and would be refused (503).
	a := serve(t, args, 30*time.Second)
	b := serve(t, args, 30*time.Second)
	client := &http.Client{Timeout: 30 * time.Second} // a bound, never reached
	for i, c := range []struct {
		addr string
		want int
	}{{a, 200}, {b, 200}, {a, 200}, {b, 429}, {a, 429}} {
		resp, err := client.Get("http://" + c.addr + "/")
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, c.want, resp.StatusCode, i)
		if c.want == 429 {
			assert.NotEmpty(t, resp.Header.Get("Retry-After"))
		}
	}
	keys, err := srv.Client(t).Keys(context.Background(), "floodgate:*").Result()
	require.NoError(t, err)
	assert.Len(t, keys, 1, "one client IP, one limit: one Redis key")
}

// TestServeRedisDown: with the Redis store unreachable, -fail closed
// answers 503, -fail open serves, -fail local decides locally on this
// process's share of the limit: a half of 4 with -fleet-size 2 (it
// granted the whole limit to each process). -require-redis refuses to
// start.
func TestServeRedisDown(t *testing.T) {
	t.Parallel()
	url := deadRedis
	client := &http.Client{Timeout: 30 * time.Second} // a bound, never reached
	for fail, want := range map[string][]int{"closed": {503, 503}, "open": {200, 200, 200}, "local": {200, 200, 429, 429}} {
		t.Run(fail, func(t *testing.T) {
			t.Parallel() // each waits out its client's dials to the dead Redis
			args := []string{"-addr", "127.0.0.1:0", "-limit", "4", "-window", "1h", "-store", url, "-fail", fail}
			if fail == "local" {
				args = append(args, "-fleet-size", "2")
			}
			addr := serve(t, args, 0)
			for i, code := range want {
				resp, err := client.Get("http://" + addr + "/")
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				assert.Equal(t, code, resp.StatusCode, "-fail %s request %d", fail, i)
			}
		})
	}
}

// TestRequireRedis: -require-redis refuses to start without Redis, with
// the start-up check's error.
func TestRequireRedis(t *testing.T) {
	t.Parallel()
	url := deadRedis
	cfg, err := parseConfig([]string{"-addr", "127.0.0.1:0", "-store", url, "-require-redis"}, io.Discard)
	require.NoError(t, err)
	err = run(context.Background(), cfg, io.Discard)
	require.ErrorIs(t, err, redisstore.ErrUnavailable)
}

// deadRedis is a Redis URL nothing answers: port 1 is privileged, and no
// test listens on it (a server started and killed left a port that another
// test's server, in a package running alongside, could take).
const deadRedis = "redis://127.0.0.1:1"

// serve runs the server with args and the store's per-decision bound
// (0: its default) until the test ends and returns its address.
func serve(t *testing.T, args []string, redisTimeout time.Duration) string {
	t.Helper()
	cfg, err := parseConfig(args, io.Discard)
	require.NoError(t, err)
	cfg.redisTimeout = redisTimeout
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, pw); _ = pw.Close() }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(30 * time.Second): // a bound, never reached
			t.Error("no graceful shutdown")
		}
	})
	line, err := within.Line(t, bufio.NewReader(pr), "the server's listening line")
	require.NoError(t, err)
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	require.True(t, ok, line)
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return addr
}
