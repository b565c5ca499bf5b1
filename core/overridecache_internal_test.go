package core

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOverrideCacheBound: a flood of distinct keys never holds more than
// MaxKeys entries, expired ones forgotten first.
func TestOverrideCacheBound(t *testing.T) {
	t.Parallel()
	var c overrideCache
	def := &Limiter{}
	c.init(64, def)
	resolve := func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
		return def, time.Second, nil
	}
	for i := range 2000 {
		l, err := c.get(context.Background(), fmt.Sprint("k", i), int64(i)*int64(time.Millisecond), resolve)
		require.NoError(t, err)
		require.Same(t, def, l)
	}
	n := 0
	for i := range c.shards {
		n += len(c.shards[i].m)
	}
	assert.LessOrEqual(t, n, 64)
}

// TestOverrideCacheWaitersCancel: a caller waiting for another's call to
// the provider returns its context's error when it ends, never a limiter.
func TestOverrideCacheWaitersCancel(t *testing.T) {
	t.Parallel()
	var c overrideCache
	def := &Limiter{}
	c.init(64, def)
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		l, err := c.get(context.Background(), "k", 0, func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
			close(entered)
			<-release
			return def, time.Second, nil
		})
		assert.NoError(t, err)
		assert.Same(t, def, l)
	}()
	within.Recv(t, entered, "the first caller in the provider")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l, err := c.get(ctx, "k", 0, func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
		t.Error("a second call to the provider for a key being resolved")
		return nil, 0, nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, l)
	close(release)
	within.Recv(t, done, "the first caller's return")
	l, err = c.get(context.Background(), "k", 1, nil)
	require.NoError(t, err)
	assert.Same(t, def, l, "cached")
}

// TestOverrideCacheAnswerNotGiven: when the caller resolving a key fails
// (its context ended) or panics, nothing is cached, the callers waiting
// for it ask again themselves, and the key's expired answer is still the
// prev of the next resolution.
func TestOverrideCacheAnswerNotGiven(t *testing.T) {
	t.Parallel()
	var c overrideCache
	c.init(64, nil)
	first, second := &Limiter{}, &Limiter{}
	l, err := c.get(context.Background(), "k", 0, func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
		return first, time.Second, nil
	})
	require.NoError(t, err)
	require.Same(t, first, l)
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := c.get(context.Background(), "k", int64(time.Second), func(_ context.Context, _ string, prev *Limiter, _ int64) (*Limiter, time.Duration, error) {
			assert.Same(t, first, prev)
			close(entered)
			<-release
			return nil, 0, context.Canceled
		})
		assert.ErrorIs(t, err, context.Canceled)
	}()
	<-entered
	waited := make(chan *Limiter)
	go func() {
		l, err := c.get(context.Background(), "k", int64(time.Second), func(_ context.Context, _ string, prev *Limiter, _ int64) (*Limiter, time.Duration, error) {
			assert.Same(t, first, prev, "the expired answer kept")
			return second, time.Second, nil
		})
		assert.NoError(t, err)
		waited <- l
	}()
	close(release)
	<-done
	assert.Same(t, second, <-waited, "the waiter asked again")
	// A panicking resolution leaves no pending entry behind.
	assert.Panics(t, func() {
		_, _ = c.get(context.Background(), "p", 0, func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
			panic("bug")
		})
	})
	l, err = c.get(context.Background(), "p", 0, func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
		return first, time.Second, nil
	})
	require.NoError(t, err)
	assert.Same(t, first, l)
}
