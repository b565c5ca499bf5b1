package redisstore_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
)

// TestPolicyChange: core.Limiter.SetPolicy on the Redis store keeps every
// key's state (the same Redis keys, read under the new limits), for every
// algorithm raised and lowered, deciding as the in-memory store does.
func TestPolicyChange(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	coretest.RunPolicyChange(t, func(*testing.T) core.Store { return s })
	checkTTLs(t, c)
}

// TestOverrides: core.Overrides on the Redis store: each override policy
// on keys of its own, cached provider answers, faults decided by the
// default policy.
func TestOverrides(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	coretest.RunOverrides(t, func(*testing.T) core.Store { return s })
	checkTTLs(t, c)
}
