package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// TestAttackTransientFunctionLoadFault: the library found missing (a
// restart without persistence, FUNCTION FLUSH) while Redis refuses writes
// for a while (READONLY after a failover, OOM at maxmemory) makes the
// FUNCTION LOAD meet that fault reply. It is a fault of the moment, not a
// Redis refusing FUNCTION LOAD: once Redis writes again, the store is back
// on FCALL, not on EVALSHA for the rest of its life (each EVALSHA runs the
// whole script, defining every helper and building the policy again).
func TestAttackTransientFunctionLoadFault(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"OOM", "READONLY"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			c := srv.Client(t)
			ctx := context.Background()
			s, _ := faultStore(t, c, redisstore.Options{ProbeInterval: time.Millisecond, ProbeMax: time.Millisecond, Timeout: noDeadline})
			l := faultLimiter(t, s, wide)
			_, err := l.Allow(ctx, "before")
			require.NoError(t, err)
			require.NoError(t, c.FunctionFlush(ctx).Err())
			if fault == "OOM" {
				require.NoError(t, c.ConfigSet(ctx, "maxmemory", "1").Err())
			} else {
				require.NoError(t, c.Do(ctx, "REPLICAOF", "127.0.0.1", "1").Err())
			}
			_, err = l.Allow(ctx, "during")
			require.ErrorIs(t, err, redisstore.ErrUnavailable, "a fault")
			if fault == "OOM" {
				require.NoError(t, c.ConfigSet(ctx, "maxmemory", "0").Err())
			} else {
				require.NoError(t, c.Do(ctx, "REPLICAOF", "NO", "ONE").Err())
			}
			// Back on Redis: the breaker's trial, every millisecond.
			within.Until(t, "back on Redis", func() bool {
				_, err = l.Allow(ctx, "after")
				return err == nil
			})
			require.NoError(t, c.ConfigResetStat(ctx).Err())
			for range 3 {
				_, err = l.Allow(ctx, "after")
				require.NoError(t, err)
			}
			require.EqualValues(t, 3, commands(t, c, "fcall"), "decisions on FCALL again")
			require.Zero(t, commands(t, c, "evalsha"), "no EVALSHA")
		})
	}
}
