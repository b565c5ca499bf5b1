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
	c.init(64)
	def := &Limiter{}
	resolve := func(context.Context, string) (*Limiter, time.Duration) { return def, time.Second }
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
	c.init(64)
	def := &Limiter{}
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		l, err := c.get(context.Background(), "k", 0, func(context.Context, string) (*Limiter, time.Duration) {
			close(entered)
			<-release
			return def, time.Second
		})
		assert.NoError(t, err)
		assert.Same(t, def, l)
	}()
	within.Recv(t, entered, "the first caller in the provider")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l, err := c.get(ctx, "k", 0, func(context.Context, string) (*Limiter, time.Duration) {
		t.Error("a second call to the provider for a key being resolved")
		return nil, 0
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, l)
	close(release)
	within.Recv(t, done, "the first caller's return")
	l, err = c.get(context.Background(), "k", 1, nil)
	require.NoError(t, err)
	assert.Same(t, def, l, "cached")
}
