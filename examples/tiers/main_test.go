package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemo(t *testing.T) {
	dir := newDirectory()
	h, err := newHandler(dir, core.WithClock(coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))))
	require.NoError(t, err)
	var out strings.Builder
	demo(&out, h, dir)
	assert.Equal(t, `globex: 60 served, then 429, Retry-After 1 s
  RateLimit-Policy: "minute";q=60;w=60, "day";q=1000;w=86400
acme: 600 served, then 429, Retry-After 1 s
  RateLimit-Policy: "minute";q=600;w=60, "day";q=100000;w=86400
globex upgrades to pro
globex: 600 served, then 429, Retry-After 1 s
  RateLimit-Policy: "minute";q=600;w=60, "day";q=100000;w=86400
initech: refused, 403
`, out.String())
}

// A client that names another tenant without its API key spends nothing
// of that tenant's plan. The example keyed each tenant by the X-Tenant
// header it trusted: 60 requests naming globex (free: 60 a minute) from
// anyone left globex 0 of its 60; now they are refused (403) and globex
// is served its 60.
func TestAttackTenantQuotaNotSpentByOthers(t *testing.T) {
	t.Parallel()
	dir := newDirectory()
	h, err := newHandler(dir, core.WithClock(coretest.NewClock(time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC))))
	require.NoError(t, err)
	send := func(tenant, apiKey string) int {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("X-Tenant", tenant)
		r.Header.Set("X-API-Key", apiKey)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for i := range 60 {
		assert.NotEqual(t, http.StatusOK, send("globex", fmt.Sprint("made-up-", i)), "request %d naming globex without its key", i)
	}
	served := 0
	for range 60 {
		if send("globex", "key-of-globex") == http.StatusOK {
			served++
		}
	}
	assert.Equal(t, 60, served, "globex's own requests")
}
