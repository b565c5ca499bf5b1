package config_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tier name that no tier has may be one the client wrote (a resolver
// reading a header): its error, given to OnError at each request, quotes
// at most 64 bytes of it, as middleware.Tiers' does. Before, a name of
// 64 KiB was copied whole into every error: 65,563 bytes; now 91.
func TestAttackUnknownTierNameClipped(t *testing.T) {
	t.Parallel()
	const src = "keys: {tenant: {user: tenant}}\npolicies: {free: 1/hour}\nroutes:\n  - pattern: /t/\n    tiers: {by: plan, policies: {free: free}}\n    key: tenant\n"
	o := options(coretest.NewClock(t0))
	o.Tiers = map[string]func(*http.Request) (string, error){"plan": func(r *http.Request) (string, error) {
		return r.Header.Get("X-Plan"), nil
	}}
	var got error
	o.Middleware.OnError = func(_ *http.Request, err error) { got = err }
	l, err := config.Parse("test.yaml", []byte(src), o)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close()) })
	h := l.Handler(ok)
	w := client{h, "198.51.100.1:1", map[string]string{"X-API-Key": "key-acme", "X-Plan": strings.Repeat("p", 64<<10)}}.do("GET", "/t/x")
	assert.NotEqual(t, http.StatusOK, w.Code)
	require.True(t, errors.Is(got, middleware.ErrUnknownTier), "%v", got)
	assert.Less(t, len(got.Error()), 200)
}
