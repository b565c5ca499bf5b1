package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServe starts the server on 127.0.0.1:0, waits for "listening on",
// exhausts a limit of 3 and shuts the server down.
func TestServe(t *testing.T) {
	cfg, err := parseConfig([]string{"-addr", "127.0.0.1:0", "-limit", "3", "-window", "1h"}, io.Discard)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, pw); _ = pw.Close() }()

	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	require.True(t, ok, line)
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	client := &http.Client{Timeout: 5 * time.Second}
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
	case <-time.After(10 * time.Second):
		t.Fatal("no graceful shutdown")
	}
}
