package config_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// localfirstConfig is a file on the local-first store of the Redis at
// url, for nodes processes, whose rounds the tests drive (a sync period
// of a minute: Run's own rounds never come within a test).
func localfirstConfig(url string, nodes int) string {
	return fmt.Sprintf(`
store:
  localfirst:
    url: %s
    prefix: "cfglf:"
    nodes: %d
    sync_period: 1m
    timeout: 10s
policies: {api: 4/min fixed-window, login: 2/min}
default: {policy: api}
routes:
  - {pattern: POST /login, policy: login}
`, url, nodes)
}

// A file with store.localfirst decides in memory and syncs through
// Redis: before any round a process holds its share of a key (1/nodes);
// a round reads the window back and hands it a claim of what the other
// node left; the keys carry the prefix and no raw client key; Close runs
// a last round that pushes what the process admitted since its last one.
func TestLocalFirstStoreFromFile(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client(t)
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	l, err := config.Parse("test.yaml", []byte(localfirstConfig(srv.URL(), 2)), options(clk))
	require.NoError(t, err)
	ip := "198.51.100.50:1"
	c := client{l.Handler(ok), ip, nil}

	assert.Equal(t, 2, c.served("GET", "/", 10), "half of 4/min on a view no round read")
	require.NoError(t, config.SyncLocalFirst(ctx, l))
	assert.Equal(t, 2, windowTotal(t, rc), "the round pushed the 2")
	assert.Equal(t, 1, c.served("GET", "/", 10), "a claim of half of the 2 left")

	keys, err := rc.Keys(ctx, "*").Result()
	require.NoError(t, err)
	require.NotEmpty(t, keys)
	for _, k := range keys {
		assert.True(t, strings.HasPrefix(k, "cfglf:"), k)
		assert.NotContains(t, k, "198.51.100.50")
	}
	require.NoError(t, l.Close())
	assert.Equal(t, 3, windowTotal(t, rc), "Close pushed the unit admitted since")
}

// windowTotal sums the totals of every window hash in Redis (each field a
// MessagePack array whose first element is the key's count).
func windowTotal(t *testing.T, rc *redis.Client) int {
	t.Helper()
	n, err := rc.Eval(context.Background(), `
local n = 0
for _, k in ipairs(redis.call('KEYS', '*:w*')) do
  for _, v in ipairs(redis.call('HVALS', k)) do
    n = n + cmsgpack.unpack(v)[1]
  end
end
return n`, nil).Int()
	require.NoError(t, err)
	return n
}

// Check reports what the local-first store's check finds: nil on a Redis
// that answers (on the system clock), ErrClockSkew on a clock an hour
// off, ErrUnavailable once Redis is gone; Close stops the rounds and may
// be called again.
func TestLocalFirstStoreCheck(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	ctx := context.Background()
	l, err := config.Parse("test.yaml", []byte(localfirstConfig(srv.URL(), 2)), config.Options{})
	require.NoError(t, err)
	require.NoError(t, l.Check(ctx))
	skewed := load(t, localfirstConfig(srv.URL(), 2), coretest.NewClock(t0))
	assert.ErrorIs(t, skewed.Check(ctx), localfirst.ErrClockSkew)
	srv.Kill()
	assert.ErrorIs(t, l.Check(ctx), localfirst.ErrUnavailable)
	assert.NoError(t, l.Close())
	assert.NoError(t, l.Close(), "again")
}

// A reload changes a policy's limits on the local-first store without
// resetting a count.
func TestLocalFirstStoreReload(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	clk := coretest.NewClock(t0)
	src := localfirstConfig(srv.URL(), 1)
	l := load(t, src, clk)
	// A round would hand the node a claim under 4/min that holds it until
	// the next round, whatever the reload: none runs here.
	config.StopRounds(l)
	c := client{l.Handler(ok), "198.51.100.51:1", nil}
	assert.Equal(t, 4, c.served("GET", "/", 10))
	require.NoError(t, l.ReloadData("test.yaml", []byte(strings.Replace(src, "4/min fixed-window", "6/min fixed-window", 1))))
	assert.Equal(t, 2, c.served("GET", "/", 10), "6 − the 4 counted")
}

// The Limiter runs the store's rounds itself, every sync_period: what a
// process admits reaches Redis without a call from the application.
func TestLocalFirstStoreRuns(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client(t)
	src := strings.Replace(localfirstConfig(srv.URL(), 2), "sync_period: 1m", "sync_period: 10ms", 1)
	l := load(t, src, nil) // the system clock, which Run's rounds follow
	c := client{l.Handler(ok), "198.51.100.52:1", nil}
	require.Equal(t, 2, c.served("GET", "/", 2))
	within.Until(t, "a round of the Limiter's pushes the 2 units", func() bool { return windowTotal(t, rc) == 2 })
}

// TestAttackRefusedReloadNeverReachesLocalFirstRounds: a reload refused
// changes nothing on the local-first store either. A reload raising a
// GCRA from 10/min to 6000/min beside a shadow limit this store cannot
// sync was refused, yet the store's sync rounds leased under the refused
// rate from then on: 6000 served in one minute under 10/min burst 10
// (found by an adversarial review). Now the shadow limit is refused by
// the reload's check, before any change.
func TestAttackRefusedReloadNeverReachesLocalFirstRounds(t *testing.T) {
	srv := redistest.Start(t)
	clk := coretest.NewClock(t0)
	file := func(api string) string {
		return fmt.Sprintf(`
store:
  localfirst:
    url: %s
    prefix: "refused:"
    nodes: 1
    sync_period: 100ms
    timeout: 10s
policies: {api: %q}
default: {policy: api}
`, srv.URL(), api)
	}
	l := load(t, file("g: 10/min burst 10"), clk)
	config.StopRounds(l)
	err := l.ReloadData("test.yaml", []byte(file("g: 6000/min burst 10; log: shadow 5/min sliding-log")))
	require.Error(t, err, "the reload is refused")

	c := client{l.Handler(ok), "198.51.100.7:1", nil}
	total := 0
	for range 600 { // one minute
		total += c.served("GET", "/", 100)
		require.NoError(t, config.SyncLocalFirst(context.Background(), l))
		clk.Advance(100 * time.Millisecond)
	}
	assert.LessOrEqual(t, total, 21, "served in one minute under 10/min burst 10")
}
