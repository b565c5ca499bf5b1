package slogobserve_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/observe/slogobserve"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noTime drops the time of each record, for stable lines.
func noTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

func event(store string, c core.StoreChange) core.StoreEvent {
	return core.StoreEvent{Store: store, Change: c, Mode: "local", Fallback: true}
}

func TestOneLinePerChange(t *testing.T) {
	var buf bytes.Buffer
	o := slogobserve.New(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: noTime})))
	down := event("redis", core.StoreUnreachable)
	down.Err = errors.New("connection refused")
	replyErr := event("redis", core.StoreErrorReply)
	replyErr.Err = errors.New("NOPERM")
	for _, e := range []core.StoreEvent{
		event("redis", core.StoreReachable), // nothing was wrong: not logged
		down, down,                          // logged once
		event("redis", core.StoreSlow),
		event("redis", core.StoreReachable),
		event("redis", core.StoreReachable),
		event("redis", core.StoreSlowEnded),
		event("redis", core.StoreEvicting), event("redis", core.StoreEvicting),
		event("redis", core.StoreKeyConflict), event("redis", core.StoreKeyConflict),
		replyErr, replyErr,
		event("other", core.StoreUnreachable), // another store's state is its own
		{Store: "redis", Change: 0},           // unknown: ignored
	} {
		o.StoreChanged(e)
	}
	for range 1000 {
		o.Decided(context.Background(), core.Decision{Policy: "p", Verdict: core.VerdictDenied})
	}
	want := []string{
		`level=WARN msg="floodgate: store unreachable" store=redis change=unreachable mode=local fallback=true err="connection refused"`,
		`level=WARN msg="floodgate: store round trip not below its deadline" store=redis change=slow`,
		`level=INFO msg="floodgate: store reachable again" store=redis change=reachable`,
		`level=INFO msg="floodgate: store round trip below its deadline again" store=redis change=slow-ended`,
		`level=WARN msg="floodgate: the store's backend may evict limiter keys under memory pressure" store=redis change=evicting`,
		`level=WARN msg="floodgate: a key of the store holds another type: something else writes under its prefix" store=redis change=key-conflict`,
		`level=ERROR msg="floodgate: decisions fail with an error reply from the store's backend (fail-open admits them all)" store=redis change=error-reply mode=local fallback=true err=NOPERM`,
		`level=WARN msg="floodgate: store unreachable" store=other change=unreachable mode=local fallback=true`,
	}
	assert.Equal(t, want, strings.Split(strings.TrimSpace(buf.String()), "\n"))
}

// TestConcurrentChanges: concurrent reports of one change log one line.
func TestConcurrentChanges(t *testing.T) {
	var buf syncBuffer
	o := slogobserve.New(slog.New(slog.NewTextHandler(&buf, nil)))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				o.StoreChanged(event("redis", core.StoreUnreachable))
			}
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
	assert.Equal(t, 1, strings.Count(buf.String(), "\n"))
}

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

// TestWithLimiter: given to a limiter, it logs nothing per decision.
func TestWithLimiter(t *testing.T) {
	var buf bytes.Buffer
	o := slogobserve.New(slog.New(slog.NewTextHandler(&buf, nil)))
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 1}}),
		core.WithObserver(o))
	require.NoError(t, err)
	for range 10 {
		_, err := l.Allow(context.Background(), "k")
		require.NoError(t, err)
	}
	assert.Empty(t, buf.String())
	assert.NotNil(t, slogobserve.New(nil))
}

func Example() {
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: noTime}))
	o := slogobserve.New(log)
	// Given to a store (redisstore.Options{Observer: o}), which reports:
	o.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreUnreachable, Mode: "local", Fallback: true})
	o.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreUnreachable, Mode: "local", Fallback: true})
	o.StoreChanged(core.StoreEvent{Store: "redis", Change: core.StoreReachable, Mode: "local", Fallback: true})
	// Output:
	// level=WARN msg="floodgate: store unreachable" store=redis change=unreachable mode=local fallback=true
	// level=INFO msg="floodgate: store reachable again" store=redis change=reachable
}

// TestStoresOfOneKindApart: two stores of one kind (instances 1 and 2)
// each have their changes logged. Before, B's outage during A's repeated
// A's "unreachable" and was never logged, and A's return read as the
// kind's.
func TestStoresOfOneKindApart(t *testing.T) {
	var buf bytes.Buffer
	o := slogobserve.New(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: noTime})))
	for _, e := range []core.StoreEvent{
		{Store: "redis", Instance: 1, Change: core.StoreUnreachable, Mode: "local", Fallback: true},
		{Store: "redis", Instance: 2, Change: core.StoreUnreachable, Mode: "local", Fallback: true},
		{Store: "redis", Instance: 1, Change: core.StoreReachable},
	} {
		o.StoreChanged(e)
	}
	assert.Equal(t, []string{
		`level=WARN msg="floodgate: store unreachable" store=redis change=unreachable instance=1 mode=local fallback=true`,
		`level=WARN msg="floodgate: store unreachable" store=redis change=unreachable instance=2 mode=local fallback=true`,
		`level=INFO msg="floodgate: store reachable again" store=redis change=reachable instance=1`,
	}, strings.Split(strings.TrimSpace(buf.String()), "\n"))
}

// TestClosedStoreForgotten: a store closed while unreachable ends its
// outage in the log (one Info line) and is forgotten; a store closed in
// good health is not logged.
func TestClosedStoreForgotten(t *testing.T) {
	var buf bytes.Buffer
	o := slogobserve.New(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: noTime})))
	for _, e := range []core.StoreEvent{
		{Store: "redis", Instance: 1, Change: core.StoreUnreachable, Mode: "local", Fallback: true},
		{Store: "redis", Instance: 1, Change: core.StoreClosed},
		{Store: "redis", Instance: 2, Change: core.StoreClosed},
		{Store: "redis", Instance: 1, Change: core.StoreReachable}, // nothing left to end
	} {
		o.StoreChanged(e)
	}
	assert.Equal(t, []string{
		`level=WARN msg="floodgate: store unreachable" store=redis change=unreachable instance=1 mode=local fallback=true`,
		`level=INFO msg="floodgate: store closed (the outage or slow link logged ends with it)" store=redis change=closed instance=1`,
	}, strings.Split(strings.TrimSpace(buf.String()), "\n"))
}
