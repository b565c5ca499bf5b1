package localfirst_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// cutAfterFirst ends the round's context once its first pipeline has
// been answered (a round whose Timeout passes there), and records the
// window fields that pipeline carried.
type cutAfterFirst struct {
	cancel context.CancelFunc
	fields map[string]bool
}

func (h *cutAfterFirst) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (h *cutAfterFirst) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (h *cutAfterFirst) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if h.cancel == nil {
			return err
		}
		for _, c := range cmds {
			args := c.Args()
			for i := 0; i+2 < len(args); i++ {
				if args[i] == "w" {
					if f, ok := args[i+2].(string); ok {
						h.fields[f] = true
					}
				}
			}
		}
		h.cancel()
		h.cancel = nil
		return err
	}
}

// TestAttackFloodOfKnownKeysStarvesNoKey: a flood of keys the node has
// read before, each hit every round, fills more than a round's Timeout:
// the round sends what fits and puts the rest back. It sent the keys in
// the shards' order every round, so that the same ones went first each
// time and the keys after them were never sent (deciding on the node's
// share round after round). A round now starts its keys where the last
// one's first pipeline ended: over rounds, every key is sent.
func TestAttackFloodOfKnownKeysStarvesNoKey(t *testing.T) {
	t.Parallel()
	srv, _ := startRedis(t)
	c := newClient(t, srv.Addr())
	h := &cutAfterFirst{}
	c.AddHook(h)
	clk := coretest.NewClock(t0)
	s, err := localfirst.New(c, localfirst.Options{Nodes: 2, Clock: clk, Timeout: localfirst.MaxTimeout})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	p := core.MustPolicy("ro", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 1000, Window: time.Hour}})
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)
	const keys = 3 * 4096
	takeEach := func() {
		for i := range keys {
			r, err := l.Allow(context.Background(), fmt.Sprint("k", i))
			require.NoError(t, err)
			require.True(t, r.Allowed)
		}
	}
	takeEach()
	require.NoError(t, s.Sync(context.Background())) // every key read back: known
	sent := map[string]int{}
	for round := range 3 {
		takeEach()
		ctx, cancel := context.WithCancel(context.Background())
		h.cancel, h.fields = cancel, map[string]bool{}
		require.Error(t, s.Sync(ctx), "round %d: cut after its first pipeline", round)
		require.NotEmpty(t, h.fields)
		for f := range h.fields {
			sent[f]++
		}
	}
	require.Equal(t, keys, len(sent), "keys sent in the first pipelines of 3 cut rounds")
}
