package config

import (
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/localfirst"
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
		fs, _ = b.mapping(n, "store", "memory", "redis", "localfirst")
	}
	var given []field
	for _, k := range []string{"memory", "redis", "localfirst"} {
		if f, ok := fs[k]; ok {
			given = append(given, f)
		}
	}
	if len(given) > 1 {
		b.errorf(given[1].key, "store: %s and %s both given: want one", given[0].key.Value, given[1].key.Value)
		return
	}
	mem, isMem := fs["memory"]
	if rd, ok := fs["redis"]; ok {
		b.redisStore(rd.val, mopts)
		return
	}
	if lf, ok := fs["localfirst"]; ok {
		b.localfirstStore(lf.val)
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
	// Below 1 ms every decision fails (under fail-open, every request is
	// admitted); past 10 s a request waits on a dead Redis that long.
	opts.Timeout = b.durationIn(fs, "timeout", "store.redis", time.Millisecond, 10*time.Second)
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
		// One process's part among at most as many as the local-first
		// store's nodes: below, a limit's period stretched by the share
		// overflowed, and the error named the policy, not the share.
		opts.LocalShare, _ = b.fraction(share.val, "store.redis.local_share", localfirst.MaxNodes)
	case opts.FailureMode == redisstore.FailLocal:
		// Each process would grant the whole limit while Redis is down:
		// N processes, N times the limit.
		b.errorf(fs["failure_mode"].val, "store.redis.failure_mode: local needs local_share, the part of each limit one process grants while Redis is down (1/N for N processes)")
	}
	client := b.redisClient(n, fs, redisbound.RoundTrip(opts.Timeout), "store.redis")
	if s, ok := onClient(b, n, "store.redis", client, func(c redis.UniversalClient) (*redisstore.Store, error) {
		return redisstore.New(c, opts)
	}); ok {
		b.store, b.redis, b.client = s, s, client
	}
}

// onClient makes the store of section sec n on client with mk, once the
// section has no error; otherwise, or when mk fails (recorded at n), it
// closes the client and reports false. client nil is a client the section
// could not make (recorded).
func onClient[S any](b *builder, n *yaml.Node, sec string, client redis.UniversalClient, mk func(redis.UniversalClient) (S, error)) (S, bool) {
	var zero S
	if client == nil {
		return zero, false
	}
	if len(b.errs) > 0 {
		_ = client.Close()
		return zero, false
	}
	s, err := mk(client)
	if err != nil {
		_ = client.Close()
		b.fail(n, fmt.Errorf("%s: %w", sec, err))
		return zero, false
	}
	return s, true
}
