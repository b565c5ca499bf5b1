package redisstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gateHook holds the first command or pipeline processed once armed until
// release is closed.
type gateHook struct {
	armed            atomic.Bool
	entered, release chan struct{}
}

func (h *gateHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *gateHook) hold() {
	if h.armed.CompareAndSwap(true, false) {
		close(h.entered)
		<-h.release
	}
}

func (h *gateHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.hold(); return next(ctx, cmd) }
}

func (h *gateHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.hold(); return next(ctx, cmds) }
}

// TestAttackRingBatchesKeepToOneShard: on a Ring, each key lives on the
// shard of its hash tag. Decisions coalesced into one script call must
// keep to one shard, as they keep to one slot on a Cluster: a batch call
// carrying keys of several shards is routed by its first key, and the
// other shards' keys are then decided on a state of their own on the
// wrong shard, beside the one on theirs: each key admits up to its limit
// once per shard. And the function library must be on every shard.
func TestAttackRingBatchesKeepToOneShard(t *testing.T) {
	t.Parallel()
	shards := []*redistest.Server{redistest.Start(t), redistest.Start(t)}
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": shards[0].Addr(), "b": shards[1].Addr()},
		MaxRetries: -1, DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = ring.Close() })
	h := &gateHook{entered: make(chan struct{}), release: make(chan struct{})}
	ring.AddHook(h)
	// One worker: the decisions queued while it sends go in its next batch.
	s, err := New(ring, Options{Prefix: "ring:", Timeout: 30 * time.Second, Pipelines: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.Same(t, redis.UniversalClient(ring), s.client, "the Ring used as it is (its hooks see the store's commands)")
	const quota = 2
	l, err := core.NewLimiter(core.MustPolicy("ring", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: quota, Window: time.Hour}}),
		core.WithStore(s))
	require.NoError(t, err)
	ctx := context.Background()
	// Every key spent, one decision at a time (each on its own shard).
	keys := make([]string, 16)
	for i := range keys {
		keys[i] = fmt.Sprint("k", i)
		for range quota {
			r, err := l.Allow(ctx, keys[i])
			require.NoError(t, err, "key %s", keys[i])
			require.True(t, r.Allowed)
		}
	}
	perShard := [2]int{}
	tab, err := s.Bind(l.Policy())
	require.NoError(t, err)
	for _, k := range keys {
		for i, srv := range shards {
			n, err := srv.Client(t).Exists(ctx, tab.(*table).keys(k, nil)[0]).Result()
			require.NoError(t, err)
			perShard[i] += int(n)
		}
	}
	require.Positive(t, perShard[0], "keys on shard a")
	require.Positive(t, perShard[1], "keys on shard b")
	// The worker held on a first decision, the others queue, then go in
	// one batch.
	h.armed.Store(true)
	first := make(chan error, 1)
	go func() {
		r, err := l.Allow(ctx, "first")
		if err == nil && !r.Allowed {
			err = fmt.Errorf("denied")
		}
		first <- err
	}()
	<-h.entered
	type out struct {
		key     string
		allowed bool
		err     error
	}
	outs := make(chan out, len(keys))
	for _, k := range keys {
		go func() {
			r, err := l.Allow(ctx, k)
			outs <- out{k, r.Allowed, err}
		}()
	}
	within.Until(t, "the decisions queued", func() bool { return len(s.queue) >= len(keys) })
	close(h.release)
	require.NoError(t, <-first)
	for range keys {
		o := <-outs
		require.NoError(t, o.err, "key %s", o.key)
		assert.False(t, o.allowed, "key %s, spent, admitted again", o.key)
	}
}
