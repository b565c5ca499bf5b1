package redisstore_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// startRedis starts a redis-server on a free loopback port with the extra
// arguments (see redistest.Start: skipped without redis-server, failed
// then when CI=true).
func startRedis(t testing.TB, extra ...string) *redistest.Server {
	t.Helper()
	return redistest.Start(t, extra...)
}

func newClock() *coretest.Clock { return coretest.NewClock(coretest.T0) }

// startOnTime returns a client of a new redis-server whose scripts decide
// on Redis TIME at the instants a test clock gives (redisstore.LoadOnTime).
func startOnTime(t testing.TB) *redis.Client {
	t.Helper()
	c := startRedis(t).Client(t)
	require.NoError(t, redisstore.LoadOnTime(context.Background(), c))
	return c
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// The client's own log of failed dials would drown the fault tests' output.
func init() { redis.SetLogger(quietLogger{}) }
