package redisstore

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// stallHook stalls the first script call sent once armed: it runs stall
// (which moves the test's clocks on) before the call goes out, as a
// goroutine descheduled between the caller's clock reading and the send,
// or a call queued for a connection, would.
type stallHook struct {
	armed atomic.Bool
	stall func()
}

func (h *stallHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *stallHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.at(cmd)
		return next(ctx, cmd)
	}
}

func (h *stallHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.at(c)
		}
		return next(ctx, cmds)
	}
}

func (h *stallHook) at(cmd redis.Cmder) {
	switch strings.ToLower(cmd.Name()) {
	case "fcall", "evalsha", "eval":
		if h.armed.CompareAndSwap(true, false) {
			h.stall()
		}
	}
}

var _ redis.Hook = (*stallHook)(nil)

// TestAttackFailLocalChargeOutlastsAStall: under FailLocal with Redis's
// clock, a take Redis admitted is charged to the local limiter so that an
// outage that follows does not grant it again. It was charged at the
// caller's clock reading, taken before the request was sent: a caller
// stalled 10 s between the reading and the send (descheduled, or queued
// for a connection) had its charge end 10 s before Redis's admission did,
// and once Redis was lost, the local limiter admitted the key again 50 s
// after Redis's admission, on a limit of one a minute (GCRA 1/min, burst
// 1). The charge now runs from the reading plus the time the store held
// the request: denied until a minute after Redis decided, admitted then.
func TestAttackFailLocalChargeOutlastsAStall(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	client := srv.Client(t)
	const stall = 10 * time.Second
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	var mono atomic.Int64 // the store's monotonic clock, moved by the test alone
	hook := &stallHook{stall: func() {
		clk.Advance(stall)
		mono.Add(int64(stall))
	}}
	client.AddHook(hook)
	s, err := New(client, Options{Prefix: "chargestall:", FailureMode: FailLocal, LocalShare: 1, Timeout: 30 * time.Second,
		ProbeInterval: time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	s.mono = mono.Load
	ctx := context.Background()
	require.NoError(t, s.Check(ctx))
	p := core.MustPolicy("stall", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(1), Burst: 1}})
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)

	hook.armed.Store(true)
	r, err := l.Allow(ctx, "k") // read at 0 s, sent at 10 s
	require.NoError(t, err)
	require.True(t, r.Allowed)
	require.Equal(t, core.SourceStore, r.Source())
	require.False(t, hook.armed.Load(), "the take was stalled")

	srv.Kill()
	clk.Advance(time.Minute - stall) // 50 s after Redis admitted it
	r, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, core.SourceFallback, r.Source())
	require.False(t, r.Allowed, "the local limiter admitted the key 50 s after Redis did, on a limit of one a minute")
	clk.Advance(stall) // a minute after Redis admitted it
	r, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, core.SourceFallback, r.Source())
	require.True(t, r.Allowed, "a minute after Redis's admission")
}
