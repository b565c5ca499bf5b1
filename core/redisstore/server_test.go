package redisstore_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// startRedis starts a redis-server on a free loopback port with the extra
// arguments (see redistest.Start: skipped without redis-server, failed
// then when CI=true).
func startRedis(t testing.TB, extra ...string) *redistest.Server {
	t.Helper()
	return redistest.Start(t, extra...)
}

func newClock() *coretest.Clock { return coretest.NewClock(coretest.T0) }

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// The client's own log of failed dials would drown the fault tests' output.
func init() { redis.SetLogger(quietLogger{}) }
