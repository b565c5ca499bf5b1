package config_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redisConfig limits through the Redis server at url, on the limiters'
// clock (caller_clock), with a timeout no loaded machine misses.
func redisConfig(url, failure string) string {
	return fmt.Sprintf(`
store:
  redis:
    url: %s
    prefix: "cfgtest:"
    caller_clock: true
    timeout: 2s
    %s
policies: {api: 2/min, login: 1/min, wide: 4/min}
default: {policy: api}
routes:
  - {pattern: POST /login, policy: login}
  - {pattern: GET /a, policy: api}
  - {pattern: GET /wide, policy: wide}
`, url, failure)
}

// Two processes loading one file share its limits in Redis; two routes of
// one policy do not share buckets; Redis keys carry the prefix and no raw
// client key; with Redis gone the store fails closed (503).
func TestRedisStoreFromFile(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	clk := coretest.NewClock(t0)
	src := redisConfig(srv.URL(), "failure_mode: fail-closed")
	p1, p2 := load(t, src, clk), load(t, src, clk)
	ctx := context.Background()
	require.NoError(t, p1.Check(ctx))
	ip := "198.51.100.42:1"
	c1, c2 := client{p1.Handler(ok), ip, nil}, client{p2.Handler(ok), ip, nil}
	assert.Equal(t, []int{200, 200, 429, 429}, []int{
		c1.do("GET", "/").Code, c2.do("GET", "/").Code, c1.do("GET", "/").Code, c2.do("GET", "/").Code,
	})
	assert.Equal(t, []int{200, 200, 429}, []int{c2.do("GET", "/a").Code, c1.do("GET", "/a").Code, c2.do("GET", "/a").Code},
		"GET /a has the default's policy, in buckets of its own")
	assert.Equal(t, []int{200, 429}, []int{c1.do("POST", "/login").Code, c2.do("POST", "/login").Code})

	keys, err := srv.Client(t).Keys(ctx, "*").Result()
	require.NoError(t, err)
	require.NotEmpty(t, keys)
	for _, k := range keys {
		assert.True(t, strings.HasPrefix(k, "cfgtest:"), k)
		assert.NotContains(t, k, "198.51.100.42")
	}

	srv.Kill()
	w := c1.do("GET", "/wide")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.NotEmpty(t, w.Header().Get("Retry-After"))
	assert.Error(t, p1.Check(ctx))
}

// With failure_mode local, a process decides on its local_share of each
// limit while Redis is down.
func TestRedisStoreLocalShare(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	lim := load(t, redisConfig(srv.URL(), "failure_mode: local\n    local_share: 0.5"), coretest.NewClock(t0))
	c := client{lim.Handler(ok), "198.51.100.43:1", nil}
	srv.Kill()
	assert.Equal(t, 2, c.served("GET", "/wide", 10), "half of 4/min")
}

// With failure_mode fail-open, requests pass while Redis is down.
func TestRedisStoreFailOpen(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	lim := load(t, redisConfig(srv.URL(), "failure_mode: fail-open"), coretest.NewClock(t0))
	c := client{lim.Handler(ok), "198.51.100.44:1", nil}
	srv.Kill()
	assert.Equal(t, 10, c.served("GET", "/login", 10))
}

// The URL may come from the environment, so that a password stays out of
// the file.
func TestRedisURLFromEnvironment(t *testing.T) {
	srv := redistest.Start(t)
	t.Setenv("FLOODGATE_TEST_REDIS_URL", srv.URL())
	src := strings.Replace(redisConfig("x", ""), "url: x", "url_env: FLOODGATE_TEST_REDIS_URL", 1)
	lim := load(t, src, coretest.NewClock(t0))
	require.NoError(t, lim.Check(context.Background()))
	c := client{lim.Handler(ok), "198.51.100.45:1", nil}
	assert.Equal(t, 1, c.served("POST", "/login", 10))
}
