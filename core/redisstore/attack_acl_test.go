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

// TestAttackCheckRunsADecision: a Redis whose ACL forbids the scripts
// (FCALL, EVALSHA, EVAL, FUNCTION) answers PING and CONFIG: Check passed,
// and then every decision failed with NOPERM, which FailOpen answers by
// admitting, silently (no log line): a limiter that limits nothing. Check
// now runs a decision of every policy bound (a peek of a key no limiter
// uses) and reports its error, and the store logs the first decision that
// fails with an error reply.
func TestAttackCheckRunsADecision(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "default", "on", "nopass", "~*", "&*", "+@all",
		"-fcall", "-fcall_ro", "-evalsha", "-eval", "-function").Err())
	for _, mode := range []redisstore.FailureMode{redisstore.FailOpen, redisstore.FailClosed, redisstore.FailLocal} {
		s, logs := faultStore(t, c, redisstore.Options{FailureMode: mode, LocalShare: 1, Prefix: "acl:" + mode.String() + ":", Timeout: noDeadline})
		l := faultLimiter(t, s, core.MustPolicy("a", core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerHour(1)}}))
		err := s.Check(ctx)
		assert.ErrorContains(t, err, "NOPERM", "%v: Check", mode)
		for range 3 {
			r, err := l.Allow(ctx, "k")
			if mode == redisstore.FailOpen {
				assert.NoError(t, err)
				assert.True(t, r.Allowed, "FailOpen admits")
			} else {
				assert.ErrorContains(t, err, "NOPERM")
			}
		}
		assert.Equal(t, 1, logs.count("decisions fail with an error reply"), "%v: said once", mode)
	}
	// Allowed again: Check passes.
	require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "default", "+@all").Err())
	s, _ := faultStore(t, c, redisstore.Options{Prefix: "acl:ok:", Timeout: noDeadline})
	faultLimiter(t, s, core.MustPolicy("a", core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerHour(1)}}))
	assert.NoError(t, s.Check(ctx))
}
