package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A client without a tenant's API key gets no budget by naming tenants,
// and spends none of a tenant's contract. The example keyed tenants by an
// X-Tenant header it trusted: 20 requests naming 20 made-up tenants were
// all served (each a default budget of 5 an hour of its own, without
// end), and 20 naming acme left acme 0 of its 20; now all 40 are refused
// (403) and acme is served its 20.
func TestAttackMadeUpTenantsGetNoBudget(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)}
	_, h, err := newHandler(&billing{contracts: map[string]int64{"acme": 20}}, clk)
	require.NoError(t, err)
	send := func(tenant, apiKey string) int {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("X-Tenant", tenant)
		r.Header.Set("X-API-Key", apiKey)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	served := 0
	for i := range 20 {
		if send(fmt.Sprint("made-up-", i), fmt.Sprint("made-up-", i)) == http.StatusOK {
			served++
		}
		if send("acme", fmt.Sprint("made-up-", i)) == http.StatusOK {
			served++
		}
	}
	assert.Zero(t, served, "requests served without a tenant's key")
	acme := 0
	for range 20 {
		if send("acme", "key-of-acme") == http.StatusOK {
			acme++
		}
	}
	assert.Equal(t, 20, acme, "acme's own requests")
}
