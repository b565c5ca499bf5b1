package circuit

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeBreaker is a breaker on a fake clock and a fixed jitter.
func fakeBreaker(threshold int, base, maxWait time.Duration, jitter float64) (*Breaker, *time.Time, *[]string) {
	now := time.Unix(1000, 0)
	var events []string
	b := New(Config{Failures: threshold, Base: base, Max: maxWait, Window: 50 * time.Millisecond,
		Now: func() time.Time { return now }, Rand: func() float64 { return jitter },
		OnOpen:  func(err error) { events = append(events, "open: "+err.Error()) },
		OnClose: func() { events = append(events, "close") }})
	return b, &now, &events
}

var (
	errRefused = errors.New("dial tcp: connection refused")
	errLate    = fmt.Errorf("decision timed out: %w", context.DeadlineExceeded)
)

// TestBreakerStates: closed → open after 3 missed deadlines (1 refused
// connection), no decision through while open, one trial when the
// jittered wait is over, reopened with twice the wait (capped) when it
// fails, closed when a round trip succeeds; one event per switch.
func TestBreakerStates(t *testing.T) {
	b, now, events := fakeBreaker(3, 100*time.Millisecond, 800*time.Millisecond, 0.99)
	ok, trial := b.Allow()
	require.True(t, ok)
	require.False(t, trial)
	b.Fault(errLate, false)
	b.Fault(errLate, false)
	ok, _ = b.Allow()
	require.True(t, ok, "two missed deadlines: still closed")
	b.Answered(b.Epoch())
	*now = now.Add(time.Second) // no answered round trip within the window
	b.Fault(errLate, false)
	b.Fault(errLate, false)
	ok, _ = b.Allow()
	require.True(t, ok, "a success in between resets the count")
	b.Fault(errLate, false)
	ok, _ = b.Allow()
	require.False(t, ok, "three in a row open it")
	require.Equal(t, []string{"open: " + errLate.Error()}, *events)

	waits := []time.Duration{}
	for range 6 {
		start := *now
		for ok, trial = b.Allow(); !ok; ok, trial = b.Allow() {
			*now = now.Add(time.Millisecond)
			require.Less(t, now.Sub(start), time.Second, "a trial within ProbeMax")
		}
		require.True(t, trial)
		waits = append(waits, now.Sub(start))
		ok, _ = b.Allow()
		require.False(t, ok, "one trial at a time")
		b.Fault(errRefused, false) // an older round trip failing: not the trial's
		ok, _ = b.Allow()
		require.False(t, ok, "still half-open")
		b.Fault(errRefused, true)
	}
	// Jitter 0.99 (a wait of 0.995 of it) of 100, 200, 400, 800, 800, 800 ms (the first wait
	// counted from the switch, the others from the failed trial).
	want := []time.Duration{100, 199, 398, 796, 796, 796}
	for i := range want {
		require.InDelta(t, float64(want[i]*time.Millisecond), float64(waits[i]), float64(2*time.Millisecond), "wait %d", i)
	}
	require.Len(t, *events, 1, "no event while it stays down")

	for ok, trial = b.Allow(); !ok; ok, trial = b.Allow() {
		*now = now.Add(time.Millisecond)
	}
	require.True(t, trial)
	b.Answered(b.Epoch())
	require.Equal(t, []string{"open: " + errLate.Error(), "close"}, *events)
	ok, trial = b.Allow()
	require.True(t, ok)
	require.False(t, trial)

	// A refused connection opens it at once (right after closing: the
	// longest wait, ProbeMax); a trial that never reached Redis is
	// released, and the next decision is the trial.
	b.Fault(errRefused, false)
	ok, _ = b.Allow()
	require.False(t, ok)
	*now = now.Add(800 * time.Millisecond)
	ok, trial = b.Allow()
	require.True(t, ok && trial)
	b.Release()
	ok, trial = b.Allow()
	require.True(t, ok && trial)
	b.Answered(b.Epoch())
	require.Len(t, *events, 4)
}

// TestBreakerJitter: the wait is between half of it and all of it.
func TestBreakerJitter(t *testing.T) {
	for _, j := range []float64{0, 0.5, 0.999} {
		b, now, _ := fakeBreaker(1, 100*time.Millisecond, 800*time.Millisecond, j)
		b.Fault(errRefused, false)
		wait := time.Duration(0)
		for ok, _ := b.Allow(); !ok; ok, _ = b.Allow() {
			*now = now.Add(time.Millisecond)
			wait += time.Millisecond
		}
		require.GreaterOrEqual(t, wait, 50*time.Millisecond)
		require.LessOrEqual(t, wait, 100*time.Millisecond)
	}
}

// TestBreakerSlowNotOutage: missed deadlines while other round trips are
// answered (a connection being set up on a slow link) do not open it.
func TestBreakerSlowNotOutage(t *testing.T) {
	b, now, events := fakeBreaker(3, 100*time.Millisecond, 800*time.Millisecond, 0.5)
	for range 10 {
		b.Answered(b.Epoch())
		*now = now.Add(10 * time.Millisecond)
		b.Fault(errLate, false)
	}
	ok, _ := b.Allow()
	require.True(t, ok)
	require.Empty(t, *events)
}
