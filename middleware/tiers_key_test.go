package middleware_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackTiersWithoutKeyRefused: Tiers given to NewSelect with no
// Options.Key counted each plan per client IP, not per tenant, with no
// word: a free tenant (1 an hour) calling from 10 addresses was admitted
// 10 of 10. NewSelect refuses it, saying which key to give; an explicit
// key (a tenant, or the client IP on purpose) is accepted.
func TestAttackTiersWithoutKeyRefused(t *testing.T) {
	t.Parallel()
	tiers := func() middleware.Selector {
		sel, err := middleware.Tiers(func(*http.Request) (string, error) { return "free", nil },
			map[string]middleware.Limiter{"free": limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour})})
		require.NoError(t, err)
		return sel
	}
	m, err := middleware.NewSelect(tiers(), middleware.Options{})
	if err == nil {
		h := m.Handler(okHandler)
		served := 0
		for i := range 10 {
			served += boolInt(get(h, "192.0.2."+strconv.Itoa(i+1)+":1").Code == http.StatusOK)
		}
		t.Logf("one tenant from 10 addresses on a plan of 1 an hour: %d of 10 served", served)
	}
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, "Options.Key")

	tenant := keyfunc.User(func(*http.Request) (string, bool) { return "acme", true })
	m, err = middleware.NewSelect(tiers(), middleware.Options{Key: tenant})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	assert.Equal(t, []int{200, 429}, []int{get(h, "192.0.2.1:1").Code, get(h, "192.0.2.2:1").Code}, "counted per tenant")

	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	require.NoError(t, err)
	_, err = middleware.NewSelect(tiers(), middleware.Options{Key: ip})
	require.NoError(t, err, "per client IP on purpose")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// perIP is the client-IP key given explicitly, for tests of Tiers that
// count per address on purpose.
func perIP(t testing.TB) keyfunc.Func {
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	require.NoError(t, err)
	return ip
}
