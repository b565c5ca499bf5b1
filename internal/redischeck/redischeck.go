// Package redischeck is the start-up check floodgate's Redis components
// (core/redisstore, core/inflight/redisinflight) share: Redis answers, its
// round trip is below the component's timeout, a real round trip of the
// component's scripts passes (an ACL may forbid them while PING passes),
// and its maxmemory-policy does not evict the component's keys.
package redischeck

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Check is one component's check.
type Check struct {
	// What names the component in errors and log lines ("redisstore").
	What string
	// Client is the component's client.
	Client redis.UniversalClient
	// Timeout is the component's deadline: the round trip must be below it.
	Timeout time.Duration
	// Unavailable is wrapped by the error when Redis does not answer, and
	// BelowRTT when the round trip is not below Timeout.
	Unavailable, BelowRTT error
	// Unreachable tells an error of Redis not answering from an error reply.
	Unreachable func(error) bool
	// RTT, when set, is told the round trip measured.
	RTT func(time.Duration)
	// Ready, when set, runs once the round trip is measured: what the
	// component does before its calls (warm its pools, load its
	// functions). Its error is returned as it is.
	Ready func(ctx context.Context) error
	// Probe runs the component's scripts once, as its calls run them, on
	// keys none of its calls uses.
	Probe func(ctx context.Context) error
	// Failing says, in the error of a probe that fails with an error
	// reply, what that means for the component ("under FailOpen, every
	// call would be admitted"); "" says nothing more.
	Failing string
	// Log receives the eviction warning, and a line when maxmemory-policy
	// cannot be read.
	Log *slog.Logger
}

// Run runs c within ctx and returns Redis's maxmemory-policy ("" when
// CONFIG is refused, as managed Redis may), and an error wrapping
// c.Unavailable when Redis does not answer, c.BelowRTT when the round
// trip (the shortest of 3 PINGs) is not below c.Timeout, or the error the
// probe met (NOPERM, say: under FailOpen every call would be admitted). A
// policy that may evict the component's keys (see Evicts) is logged as a
// warning; on a Cluster or a Ring every master's policy is read, and an
// evicting one is returned.
func (c Check) Run(ctx context.Context) (policy string, err error) {
	best := time.Duration(-1)
	for range 3 {
		start := time.Now()
		if err := c.Client.Ping(ctx).Err(); err != nil {
			return "", fmt.Errorf("%s: start-up check: %w: %w", c.What, c.Unavailable, err)
		}
		if d := time.Since(start); best < 0 || d < best {
			best = d
		}
	}
	if c.RTT != nil {
		c.RTT(best)
	}
	if best >= c.Timeout {
		return "", fmt.Errorf("%s: start-up check: round trip %v, Timeout %v: %w", c.What, best, c.Timeout, c.BelowRTT)
	}
	if c.Ready != nil {
		if err := c.Ready(ctx); err != nil {
			return "", err
		}
	}
	if err := c.Probe(ctx); err != nil {
		if c.Unreachable(err) {
			return "", fmt.Errorf("%s: start-up check: %w: %w", c.What, c.Unavailable, err)
		}
		if c.Failing != "" {
			return "", fmt.Errorf("%s: start-up check: a call fails (%s): %w", c.What, c.Failing, err)
		}
		return "", fmt.Errorf("%s: start-up check: a call fails: %w", c.What, err)
	}
	policy, err = evictionPolicy(ctx, c.Client)
	if err != nil {
		c.Log.Info(c.What+": cannot read maxmemory-policy (CONFIG disabled?); make sure Redis does not evict its keys", "err", err)
		return "", nil
	}
	if Evicts(policy) {
		c.Log.Warn(c.What+": redis evicts keys under memory pressure (maxmemory-policy "+policy+
			"): limits may be silently erased; use noeviction (every key of floodgate has a TTL: volatile-* policies evict them too)",
			"policy", policy)
	}
	return policy, nil
}

// evictionPolicy reads client's maxmemory-policy: on a Cluster or a Ring,
// every master's (each has its own configuration), the first that evicts
// if any does, else one of them. (CONFIG GET through a Cluster client went
// to one node, at random: an evicting master among noeviction ones was
// reported once in three.)
func evictionPolicy(ctx context.Context, client redis.UniversalClient) (string, error) {
	read := func(ctx context.Context, c redis.Cmdable) (string, error) {
		cfg, err := c.ConfigGet(ctx, "maxmemory-policy").Result()
		return cfg["maxmemory-policy"], err
	}
	var each func(context.Context, func(context.Context, *redis.Client) error) error
	switch c := client.(type) {
	case *redis.ClusterClient:
		each = c.ForEachMaster
	case *redis.Ring:
		each = c.ForEachShard
	default:
		return read(ctx, client)
	}
	var mu sync.Mutex
	policy := ""
	err := each(ctx, func(ctx context.Context, n *redis.Client) error {
		p, err := read(ctx, n)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if policy == "" || !Evicts(policy) && Evicts(p) {
			policy = p
		}
		return nil
	})
	return policy, err
}

// Evicts reports whether a maxmemory-policy may evict floodgate's keys
// under memory pressure: every policy but noeviction. Every key of
// floodgate has a TTL, so the volatile-* policies, which evict only keys
// with one, evict them as readily as allkeys-* (in a Redis shared with
// keys without a TTL, before anything else: those they never evict).
func Evicts(policy string) bool { return policy != "" && policy != "noeviction" }
