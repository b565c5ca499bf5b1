package redisstore_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
)

// TestPolicyChangeAndOverrides, on one Redis store:
//   - core.Limiter.SetPolicy keeps every key's state (the same Redis keys,
//     read under the new limits), for every algorithm raised and lowered,
//     deciding as the in-memory store does;
//   - core.Overrides decides each override policy on keys of its own,
//     caches the provider's answers, and falls back to the default policy
//     on faults.
func TestPolicyChangeAndOverrides(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	newStore := func(*testing.T) core.Store { return s }
	t.Run("PolicyChange", func(t *testing.T) { coretest.RunPolicyChange(t, newStore) })
	t.Run("Overrides", func(t *testing.T) { coretest.RunOverrides(t, newStore) })
	checkTTLs(t, c)
}
