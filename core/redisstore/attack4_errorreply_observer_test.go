package redisstore_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackErrorReplyReportedToObserver: a Redis whose ACL forbids the
// scripts fails every decision with NOPERM, which FailOpen answers by
// admitting every request. The store said so once, to its own Logger only:
// its Observer was told nothing (0 events), so an operator logging store
// changes with slogobserve ("use one or the other") saw no line, and
// promobserve showed the store up, no fallback, while it limited nothing.
// The store now reports it once, as StoreErrorReply with the error, in
// every failure mode.
func TestAttackErrorReplyReportedToObserver(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "default", "on", "nopass", "~*", "&*", "+@all",
		"-fcall", "-fcall_ro", "-evalsha", "-eval", "-function").Err())
	for _, mode := range []redisstore.FailureMode{redisstore.FailOpen, redisstore.FailClosed, redisstore.FailLocal} {
		obs := &coretest.Observer{}
		s, _ := faultStore(t, c, redisstore.Options{FailureMode: mode, LocalShare: 1, Prefix: "acl4:" + mode.String() + ":", Timeout: noDeadline, Observer: obs})
		l := faultLimiter(t, s, core.MustPolicy("a", core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerHour(1)}}))
		for range 3 {
			_, _ = l.Allow(ctx, "k")
		}
		ev := obs.Events()
		require.Len(t, ev, 1, "%v: reported once", mode)
		assert.Equal(t, core.StoreErrorReply, ev[0].Change, "%v", mode)
		assert.Equal(t, "error-reply", ev[0].Change.String())
		assert.Equal(t, "redis", ev[0].Store)
		assert.Equal(t, mode.String(), ev[0].Mode)
		assert.ErrorContains(t, ev[0].Err, "NOPERM", "%v", mode)
	}
}
