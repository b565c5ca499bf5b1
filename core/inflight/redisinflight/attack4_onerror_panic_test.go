package redisinflight_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAttackPanickingOnErrorKeepsTheProcess: OnError is told of a failed
// renewal on the renewal timer's goroutine (time.AfterFunc's), one of the
// limiter's own: an OnError that panicked there (an application's logging
// hook with a bug) crashed the whole process at the first renewal Redis
// did not answer (the test binary died: "panic: hook bug"). The panic is
// now recovered and logged, and the renewal is scheduled again.
func TestAttackPanickingOnErrorKeepsTheProcess(t *testing.T) {
	srv := redistest.Start(t)
	proxy, pc := proxied(t, srv)
	var logs syncBuffer
	l := newLimiter(t, pc, 1, redisinflight.Options{Lease: 2 * time.Minute, Clock: coretest.NewClock(t0),
		OnError: func(error) { panic("hook bug") }, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	timers := redisinflight.FakeRenewals(l)
	ctx := context.Background()
	s, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	timer := within.Recv(t, timers, "the slot's renewal timer")

	proxy.Refuse(true)
	proxy.Drop()
	done := make(chan struct{})
	go func() { // as time.AfterFunc runs it
		defer close(done)
		timer.Renew()
	}()
	within.Recv(t, done, "the renewal's end")
	assert.Equal(t, 2, timer.Scheduled, "the next renewal is scheduled")
	assert.Equal(t, 1, strings.Count(logs.String(), "Options.OnError panicked"), logs.String())
	proxy.Refuse(false)
	_ = s.Release(ctx)
}
