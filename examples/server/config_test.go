package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", cfg.addr)
	assert.Equal(t, "memory", cfg.store)
	assert.False(t, cfg.opts.FailOpen)
	assert.Equal(t, headers.AllFields&^(headers.RateLimitLimit|headers.RateLimitRemaining|headers.RateLimitReset), cfg.opts.Headers.Fields())
	assert.Equal(t, []core.Limit{{Name: "api", Algorithm: core.GCRA{Rate: core.PerMinute(60), Burst: 60}}}, cfg.policy.Limits())
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "[2001:db8:1:2:3::4]:1"
	k, err := cfg.opts.Key(r)
	require.NoError(t, err)
	assert.Equal(t, "2001:db8:1:2::/64", k)
}

func TestParseConfigAlgorithms(t *testing.T) {
	t.Parallel()
	rate := core.Per(10, 20_000_000_000)
	for _, c := range []struct {
		args []string
		want core.Algorithm
	}{
		{[]string{"-algorithm", "gcra", "-burst", "3"}, core.GCRA{Rate: rate, Burst: 3}},
		{[]string{"-algorithm", "token-bucket"}, core.TokenBucket{Rate: rate, Burst: 10}},
		{[]string{"-algorithm", "leaky-bucket", "-burst", "4"}, core.LeakyBucket{Rate: rate, Capacity: 4, NoDelay: 4}},
		{[]string{"-algorithm", "fixed-window"}, core.FixedWindow{Quota: 10, Window: rate.Period}},
		{[]string{"-algorithm", "sliding-log"}, core.SlidingLog{Quota: 10, Window: rate.Period}},
		{[]string{"-algorithm", "sliding-window"}, core.SlidingWindow{Quota: 10, Window: rate.Period}},
		{[]string{"-algorithm", "hybrid"}, core.Hybrid{Quota: 10, Window: rate.Period}},
		{[]string{"-algorithm", "rolling-window"}, core.RollingWindow{Quota: 10, Window: rate.Period, Period: rate.Period / 10}},
		{[]string{"-algorithm", "warm-up"}, core.WarmUp{Rate: rate, WarmUp: rate.Period}},
		{[]string{"-algorithm", "backoff"}, core.Backoff{Free: 10, Window: rate.Period}},
	} {
		cfg, err := parseConfig(append(c.args, "-limit", "10", "-window", "20s"), io.Discard)
		require.NoError(t, err, c.args)
		assert.Equal(t, c.want, cfg.policy.Limits()[0].Algorithm, c.args)
	}
}

func TestParseConfigFlags(t *testing.T) {
	t.Parallel()
	req := func(remote, xff, apiKey string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = remote
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		if apiKey != "" {
			r.Header.Set("X-Api-Key", apiKey)
		}
		return r
	}
	for _, c := range []struct {
		name  string
		args  []string
		check func(t *testing.T, cfg *config)
	}{
		{"addr", []string{"-addr", "127.0.0.1:0"}, func(t *testing.T, cfg *config) { assert.Equal(t, "127.0.0.1:0", cfg.addr) }},
		{"trusted proxies", []string{"-trusted-proxy", "10.0.0.0/8", "-trusted-proxy", "192.168.0.1"}, func(t *testing.T, cfg *config) {
			for remote, want := range map[string]string{"10.1.1.1:1": "198.51.100.7/32", "192.168.0.1:1": "198.51.100.7/32", "192.0.2.1:1": "192.0.2.1/32"} {
				k, err := cfg.opts.Key(req(remote, "198.51.100.7", ""))
				require.NoError(t, err)
				assert.Equal(t, want, k, remote)
			}
		}},
		{"ipv6 prefix", []string{"-ipv6-prefix", "48"}, func(t *testing.T, cfg *config) {
			k, err := cfg.opts.Key(req("[2001:db8:1:2::1]:1", "", ""))
			require.NoError(t, err)
			assert.Equal(t, "2001:db8:1::/48", k)
		}},
		{"header key", []string{"-key", "header:X-Api-Key"}, func(t *testing.T, cfg *config) {
			a, err := cfg.opts.Key(req("192.0.2.1:1", "", "k1"))
			require.NoError(t, err)
			b, err := cfg.opts.Key(req("192.0.2.2:1", "", "k1"))
			require.NoError(t, err)
			assert.Equal(t, a, b)
			assert.NotContains(t, a, "k1")
			_, err = cfg.opts.Key(req("192.0.2.1:1", "", ""))
			assert.Error(t, err)
		}},
		{"redis store form", []string{"-store", "redis://localhost:6379"}, func(t *testing.T, cfg *config) {
			assert.Equal(t, "redis://localhost:6379", cfg.store)
			// The client dials lazily: building the handler needs no Redis.
			h, closeStore, err := newHandler(cfg)
			require.NoError(t, err)
			assert.NotNil(t, h)
			closeStore()
		}},
		{"fail default", nil, func(t *testing.T, cfg *config) {
			assert.False(t, cfg.opts.FailOpen)
			assert.Equal(t, redisstore.FailClosed, cfg.fail)
		}},
		{"fail open", []string{"-fail", "open"}, func(t *testing.T, cfg *config) {
			assert.True(t, cfg.opts.FailOpen)
			assert.Equal(t, redisstore.FailOpen, cfg.fail)
		}},
		{"fail closed", []string{"-fail", "closed"}, func(t *testing.T, cfg *config) {
			assert.False(t, cfg.opts.FailOpen)
			assert.Equal(t, redisstore.FailClosed, cfg.fail)
		}},
		{"fail local", []string{"-fail", "local", "-store", "redis://127.0.0.1:6379", "-fleet-size", "4"}, func(t *testing.T, cfg *config) {
			assert.False(t, cfg.opts.FailOpen)
			assert.Equal(t, redisstore.FailLocal, cfg.fail)
			assert.Equal(t, 0.25, cfg.share, "each of 4 processes grants a quarter")
		}},
		{"fail local memory", []string{"-fail", "local"}, func(t *testing.T, cfg *config) {
			assert.Equal(t, 1.0, cfg.share)
		}},
		{"require redis", []string{"-store", "redis://127.0.0.1:6379", "-require-redis"}, func(t *testing.T, cfg *config) {
			assert.True(t, cfg.strict)
		}},
		{"headers xratelimit", []string{"-headers", "xratelimit"}, func(t *testing.T, cfg *config) {
			assert.Equal(t, headers.XRateLimit, cfg.opts.Headers.Fields())
		}},
		{"headers ietf,retry-after", []string{"-headers", "ietf, retry-after"}, func(t *testing.T, cfg *config) {
			assert.Equal(t, headers.RetryAfter|headers.RateLimitPolicy|headers.RateLimit, cfg.opts.Headers.Fields())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseConfig(c.args, io.Discard)
			require.NoError(t, err)
			c.check(t, cfg)
		})
	}
}

func TestParseConfigRejects(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-nope"},
		{"extra"},
		{"-algorithm", "bogus"},
		{"-limit", "0"},
		{"-limit", "x"},
		{"-window", "0s"},
		{"-window", "-1m"},
		{"-window", "soon"},
		{"-burst", "0"},
		{"-burst", "5", "-algorithm", "fixed-window"},
		{"-algorithm", "sliding-log", "-limit", "1000000000"},
		{"-key", "cookie"},
		{"-key", "header:"},
		{"-key", "header:Bad Name"},
		{"-key", "header:X-Api-Key", "-trusted-proxy", "10.0.0.0/8"},
		{"-key", "header:X-Api-Key", "-ipv6-prefix", "48"},
		{"-trusted-proxy", "10.0.0.0/99"},
		{"-trusted-proxy", "nonsense"},
		{"-ipv6-prefix", "8"},
		{"-ipv6-prefix", "129"},
		{"-store", "disk"},
		{"-store", "redis://"},
		{"-store", "redis://localhost"},
		{"-store", "http://localhost:6379"},
		{"-fail", "maybe"},
		{"-fail", "local", "-store", "redis://localhost:6379"}, // -fleet-size missing: each process would grant the whole limit
		{"-fail", "local", "-store", "redis://localhost:6379", "-fleet-size", "0"},
		{"-fail", "open", "-store", "redis://localhost:6379", "-fleet-size", "2"},
		{"-fail", "local", "-fleet-size", "2"},
		{"-require-redis"},
		{"-store", "redis://localhost:6379", "-algorithm", "fixed-window", "-window", "1500ns"},
		{"-store", "redis://localhost:6379/db"},
		{"-headers", ""},
		{"-headers", "xratelimit,cookies"},
	} {
		_, err := parseConfig(args, io.Discard)
		if assert.Error(t, err, args) {
			assert.NotContains(t, err.Error(), "\n", args)
		}
	}
}
