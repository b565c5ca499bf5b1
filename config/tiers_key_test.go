package config_test

import (
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackTiersWithoutKeyRefused: a route of tiers without key was
// counted by the default key, ip: each plan per client address, not per
// tenant, with no word. A free tenant (1 an hour) calling from 10
// addresses was admitted 10 of 10. The file is refused at its tiers, the
// error naming the key to give; key: ip written out counts per address on
// purpose, and a user key per tenant.
func TestAttackTiersWithoutKeyRefused(t *testing.T) {
	t.Parallel()
	const src = "policies: {free: 1/hour, pro: 1/hour}\nroutes:\n  - pattern: /t/\n    tiers: {by: plan, policies: {free: free, pro: pro}}\n"
	globex := map[string]string{"X-API-Key": "key-globex"} // free
	l, err := config.Parse("test.yaml", []byte(src), options(coretest.NewClock(t0)))
	if err == nil {
		h := l.Handler(ok)
		served := 0
		for i := range 10 {
			served += client{h, "198.51.100." + strconv.Itoa(i+1) + ":1", globex}.served("GET", "/t/x", 1)
		}
		t.Logf("one tenant from 10 addresses on a plan of 1 an hour: %d of 10 served", served)
		require.NoError(t, l.Close())
	}
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, "test.yaml:4:5: routes[0].tiers: no key")

	h := load(t, "keys: {tenant: {user: tenant}}\n"+src+"    key: tenant\n", coretest.NewClock(t0)).Handler(ok)
	assert.Equal(t, 1, client{h, "198.51.100.1:1", globex}.served("GET", "/t/x", 2))
	assert.Equal(t, 0, client{h, "198.51.100.2:1", globex}.served("GET", "/t/x", 1), "counted per tenant")

	h = load(t, src+"    key: ip\n", coretest.NewClock(t0)).Handler(ok)
	assert.Equal(t, 1, client{h, "198.51.100.2:1", globex}.served("GET", "/t/x", 2), "per address, on purpose")
	assert.Equal(t, 1, client{h, "198.51.100.3:1", globex}.served("GET", "/t/x", 2))
}
