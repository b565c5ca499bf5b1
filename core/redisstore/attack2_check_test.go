package redisstore_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackCheckRunsAWrite: TestAttackCheckRunsADecision for an ACL that
// lets the scripts run and read but not write (a command the scripts run
// to write, or write access to keys). Check ran a peek, which writes
// nothing: it passed, and every take then failed, which FailOpen answered
// by admitting. Check now runs a take and a reset of its own key too.
func TestAttackCheckRunsAWrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		acl  []any
	}{
		{"no SET", []any{"~*", "+@all", "-set"}},
		{"read-only keys", []any{"%R~*", "+@all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			c := srv.Client(t)
			ctx := context.Background()
			require.NoError(t, c.Do(ctx, append([]any{"ACL", "SETUSER", "default", "reset", "on", "nopass", "&*"}, tc.acl...)...).Err())
			s, _ := faultStore(t, c, redisstore.Options{FailureMode: redisstore.FailOpen, Timeout: noDeadline})
			p := core.MustPolicy("a", core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerHour(1)}})
			l := faultLimiter(t, s, p)
			assert.Error(t, s.Check(ctx), "Check")
			for range 3 {
				r, err := l.Allow(ctx, "k")
				require.NoError(t, err)
				assert.True(t, r.Allowed, "FailOpen admits what Check warned of")
			}
			require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "default", "reset", "on", "nopass", "~*", "&*", "+@all").Err())
			assert.NoError(t, s.Check(ctx), "allowed again")
			keys, err := c.Keys(ctx, "*check*").Result()
			require.NoError(t, err)
			assert.Empty(t, keys, "Check leaves no key behind")
		})
	}
}
