package config

import (
	"fmt"
	"os"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redisbound"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/redis/go-redis/v9"
	"go.yaml.in/yaml/v3"
)

// buildStore makes the store of the store section n (nil: memory).
func (b *builder) buildStore(n *yaml.Node, mopts *middleware.Options) {
	var fs map[string]field
	if n != nil {
		fs, _ = b.mapping(n, "store", "memory", "redis")
	}
	mem, isMem := fs["memory"]
	rd, isRedis := fs["redis"]
	switch {
	case isMem && isRedis:
		b.errorf(rd.key, "store: memory and redis both given: want one")
	case isRedis:
		b.redisStore(rd.val, mopts)
		return
	}
	opts := core.MemoryOptions{}
	if isMem {
		b.memoryOptions(mem.val, &opts)
	}
	s, err := core.NewMemoryStore(opts)
	if err != nil {
		b.fail(mem.key, fmt.Errorf("store.memory: %w", err))
		return
	}
	b.store = s
}

func (b *builder) memoryOptions(n *yaml.Node, opts *core.MemoryOptions) {
	fs, _ := b.mapping(n, "store.memory", "max_keys", "when_full")
	if f, ok := fs["max_keys"]; ok {
		v, _ := b.integer(f.val, "store.memory.max_keys", 1, 1<<40)
		opts.MaxKeys = int(v)
	}
	if f, ok := fs["when_full"]; ok {
		if w, _ := b.word(f.val, "store.memory.when_full", "evict-cheapest", "refuse-new"); w == "refuse-new" {
			opts.WhenFull = core.RefuseNew
		}
	}
}

// redisFields are the fields of store.redis.
var redisFields = []string{"url", "url_env", "addresses", "master_name", "password_env", "prefix", "timeout",
	"failure_mode", "local_share", "caller_clock"}

// redisStore makes the Redis client and store of store.redis n.
func (b *builder) redisStore(n *yaml.Node, mopts *middleware.Options) {
	fs, ok := b.mapping(n, "store.redis", redisFields...)
	if !ok {
		return
	}
	var opts redisstore.Options
	if f, ok := fs["prefix"]; ok {
		opts.Prefix, _ = b.str(f.val, "store.redis.prefix")
	}
	if f, ok := fs["timeout"]; ok {
		opts.Timeout, _ = b.duration(f.val, "store.redis.timeout")
	}
	if f, ok := fs["caller_clock"]; ok {
		opts.CallerClock, _ = b.boolean(f.val, "store.redis.caller_clock")
	}
	if f, ok := fs["failure_mode"]; ok {
		switch m, _ := b.word(f.val, "store.redis.failure_mode", "fail-closed", "fail-open", "local"); m {
		case "fail-open":
			opts.FailureMode = redisstore.FailOpen
			mopts.FailOpen = true
		case "local":
			opts.FailureMode = redisstore.FailLocal
		}
	}
	share, hasShare := fs["local_share"]
	switch {
	case hasShare && opts.FailureMode != redisstore.FailLocal:
		b.errorf(share.key, "store.redis.local_share: only with failure_mode: local")
	case hasShare:
		opts.LocalShare, _ = b.fraction(share.val, "store.redis.local_share")
	case opts.FailureMode == redisstore.FailLocal:
		// Each process would grant the whole limit while Redis is down:
		// N processes, N times the limit.
		b.errorf(fs["failure_mode"].val, "store.redis.failure_mode: local needs local_share, the part of each limit one process grants while Redis is down (1/N for N processes)")
	}
	client := b.redisClient(n, fs, redisbound.RoundTrip(opts.Timeout))
	if client == nil || len(b.errs) > 0 {
		if client != nil {
			_ = client.Close()
		}
		return
	}
	s, err := redisstore.New(client, opts)
	if err != nil {
		_ = client.Close()
		b.fail(n, fmt.Errorf("store.redis: %w", err))
		return
	}
	b.store, b.redis, b.client = s, s, client
}

// redisClient makes the client of store.redis n: from url, url_env or
// addresses. Commands are never retried: the store has its own deadline,
// failure mode and circuit breaker, and a retried take would count twice.
// A client of several addresses (a Cluster) reads and writes within io,
// the store's bound on a round trip: the store sends with it as it is,
// rather than with a client of its own beside it (see redisbound).
func (b *builder) redisClient(n *yaml.Node, fs map[string]field, io time.Duration) redis.UniversalClient {
	var given []field
	for _, k := range []string{"url", "url_env", "addresses"} {
		if f, ok := fs[k]; ok {
			given = append(given, f)
		}
	}
	if len(given) != 1 {
		at := n
		if len(given) > 1 {
			at = given[1].key
		}
		b.errorf(at, "store.redis: want one of url, url_env and addresses")
		return nil
	}
	for _, k := range []string{"master_name", "password_env"} {
		if f, ok := fs[k]; ok && given[0].key.Value != "addresses" {
			b.errorf(f.key, "store.redis.%s: only with addresses (a URL holds its own settings)", k)
			return nil
		}
	}
	switch f := given[0]; f.key.Value {
	case "url", "url_env":
		return b.redisURL(f)
	default:
		addrs, _, ok := b.strs(f.val, "store.redis.addresses")
		if !ok {
			return nil
		}
		uo := &redis.UniversalOptions{Addrs: addrs, MaxRetries: -1, ReadTimeout: io, WriteTimeout: io}
		if m, ok := fs["master_name"]; ok {
			uo.MasterName, _ = b.str(m.val, "store.redis.master_name")
		}
		if p, ok := fs["password_env"]; ok {
			uo.Password, _ = b.env(p.val, "store.redis.password_env")
		}
		return redis.NewUniversalClient(uo)
	}
}

// redisURL makes a client from a URL given in the file or in the
// environment. The URL, which may hold a password, is never quoted in an
// error.
func (b *builder) redisURL(f field) redis.UniversalClient {
	var u string
	var ok bool
	if f.key.Value == "url" {
		u, ok = b.str(f.val, "store.redis.url")
	} else {
		u, ok = b.env(f.val, "store.redis.url_env")
	}
	if !ok {
		return nil
	}
	o, err := redis.ParseURL(u)
	if err != nil {
		b.errorf(f.val, "store.%s: not a Redis URL (redis://[user:password@]host:port[/db], rediss://… or unix://…)", f.key.Value)
		return nil
	}
	o.MaxRetries = -1
	return redis.NewClient(o)
}

// env returns the value of the environment variable scalar n names.
func (b *builder) env(n *yaml.Node, what string) (string, bool) {
	name, ok := b.str(n, what)
	if !ok {
		return "", false
	}
	v := os.Getenv(name)
	if v == "" {
		b.errorf(n, "%s: environment variable %s is not set", what, clip(name))
		return "", false
	}
	return v, true
}
