package config

import (
	"time"

	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/redis/go-redis/v9"
	"go.yaml.in/yaml/v3"
)

// localfirstFields are the fields of store.localfirst: the client's, as
// in store.redis, and the store's.
var localfirstFields = []string{"url", "url_env", "addresses", "master_name", "password_env", "prefix",
	"nodes", "sync_period", "timeout", "buckets", "max_batch", "max_keys"}

// localfirstStore makes the Redis client and local-first store of
// store.localfirst n. The Limiter runs its sync rounds (see Parse).
func (b *builder) localfirstStore(n *yaml.Node) {
	const sec = "store.localfirst"
	fs, ok := b.mapping(n, sec, localfirstFields...)
	if !ok {
		return
	}
	opts := localfirst.Options{Clock: b.opts.Clock}
	if f, ok := fs["nodes"]; ok {
		v, _ := b.integer(f.val, sec+".nodes", 1, localfirst.MaxNodes)
		opts.Nodes = int(v)
	} else {
		b.errorf(n, "%s.nodes: required: how many processes share the limits (on a stale view, one grants 1/nodes of a limit)", sec)
	}
	if f, ok := fs["prefix"]; ok {
		opts.Prefix, _ = b.str(f.val, sec+".prefix")
	}
	opts.SyncPeriod = b.durationIn(fs, "sync_period", sec, localfirst.MinSyncPeriod, localfirst.MaxSyncPeriod)
	opts.Timeout = b.durationIn(fs, "timeout", sec, time.Millisecond, localfirst.MaxTimeout) // below, every round fails
	for _, c := range []struct {
		name string
		to   *int
		hi   int64
	}{{"buckets", &opts.Buckets, 16384}, {"max_batch", &opts.MaxBatch, 1 << 16}, {"max_keys", &opts.MaxKeys, 1 << 40}} {
		if f, ok := fs[c.name]; ok {
			v, _ := b.integer(f.val, sec+"."+c.name, 1, c.hi)
			*c.to = int(v)
		}
	}
	io := opts.Timeout
	if io == 0 {
		io = localfirst.DefaultTimeout
	}
	client := b.redisClient(n, fs, io, sec)
	if s, ok := onClient(b, n, sec, client, func(c redis.UniversalClient) (*localfirst.Store, error) {
		return localfirst.New(c, opts)
	}); ok {
		b.store, b.lf, b.client = s, s, client
	}
}

// durationIn returns the duration of field name of fs, in [lo, hi], or 0
// when the field is not given or is invalid (recorded).
func (b *builder) durationIn(fs map[string]field, name, sec string, lo, hi time.Duration) time.Duration {
	f, ok := fs[name]
	if !ok {
		return 0
	}
	v, ok := b.duration(f.val, sec+"."+name)
	if !ok {
		return 0
	}
	if v < lo || v > hi {
		b.errorf(f.val, "%s.%s: %v: want %v to %v", sec, name, v, lo, hi)
		return 0
	}
	return v
}
