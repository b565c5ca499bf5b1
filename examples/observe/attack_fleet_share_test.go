package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackFleetGrantsItsShareWhileRedisIsDown: on Redis the demo falls
// back to local limits while Redis is unreachable. It granted each process
// the whole limit there, so that a copied fleet of N processes admitted N
// times the limit during an outage. -fleet-size N (FleetSize) is required
// with -redis, and each process grants 1/N: with two, one client's burst
// of 10 gives it 5 on this process (was 10).
func TestAttackFleetGrantsItsShareWhileRedisIsDown(t *testing.T) {
	t.Parallel()
	const dead = "127.0.0.1:1" // refused: every decision is local
	_, err := newDemo(serverConfig{Redis: dead})
	require.ErrorContains(t, err, "-fleet-size", "Redis without a fleet size")

	d, err := newDemo(serverConfig{Redis: dead, FleetSize: 2, Clock: coretest.NewClock(coretest.T0)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	admitted := 0
	for range 12 {
		r := httptest.NewRequest(http.MethodGet, "/api/items", nil)
		r.RemoteAddr = "192.0.2.7:4000"
		w := httptest.NewRecorder()
		d.handler.ServeHTTP(w, r)
		if w.Code == http.StatusOK {
			admitted++
		}
	}
	assert.Equal(t, 5, admitted, "half of the burst of 10")
}
