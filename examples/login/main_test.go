package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The demo server, on an ephemeral port: successes, failures, throttling
// with Retry-After, and the reset route of a locked account.
func TestServer(t *testing.T) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	opts := login.Options{Clock: clk, Devices: &login.DeviceOptions{Secret: []byte(strings.Repeat("s", 32)), Insecure: true}}
	// The pipe is closed when run returns: a run that fails before its
	// first line ends the read below instead of leaving it waiting.
	go func() { done <- run(ctx, "127.0.0.1:0", pw, opts); _ = pw.Close() }()
	line, err := within.Line(t, bufio.NewReader(pr), "the server's listening line")
	require.NoError(t, err)
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	require.True(t, ok, line)
	base := "http://" + addr
	client := &http.Client{Timeout: 30 * time.Second} // a bound, never reached

	var device *http.Cookie
	post := func(path, ctype, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", ctype)
		if device != nil {
			req.AddCookie(device)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return resp, string(b)
	}
	form := func(user, pass string) string {
		return url.Values{"username": {user}, "password": {pass}}.Encode()
	}
	const ctForm = "application/x-www-form-urlencoded"
	resp, body := post("/login", ctForm, form("alice", "correct horse battery staple"))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, "welcome")
	resp, _ = post("/login", "application/json", `{"username":"alice","password":"correct horse battery staple"}`)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, resp.Cookies(), 1, "a device cookie")
	cookie := resp.Cookies()[0]
	for i := range 6 { // the default account limit: 5 free, the 6th locks; spellings share it
		resp, _ = post("/login", ctForm, form([]string{"alice", "ALICE", " ａｌｉｃｅ "}[i%3], fmt.Sprint("guess", i)))
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, i)
	}
	resp, body = post("/login", "application/json", `{"username":"alice","password":"correct horse battery staple"}`)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Contains(t, body, "too many failed login attempts")
	device = cookie // alice's own device is judged apart
	resp, _ = post("/login", ctForm, form("alice", "correct horse battery staple"))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	device = nil
	resp, _ = post("/reset-password", ctForm, form("alice", ""))
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	clk.Advance(time.Second)
	resp, _ = post("/login", ctForm, form("alice", "correct horse battery staple"))
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second): // a bound, never reached
		t.Fatal("server did not shut down")
	}
}
