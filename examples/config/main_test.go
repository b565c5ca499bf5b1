package main

import (
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The demo on the embedded floodgate.yaml, on a clock that stands still.
func TestDemo(t *testing.T) {
	lim, err := load("", coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	require.NoError(t, err)
	defer lim.Close()
	var out strings.Builder
	demo(&out, lim.Handler(api()))
	assert.Equal(t, `anonymous GET /                      60 served, then 429 "anonymous";q=60;w=60
forged API keys, same address         0 served, then 429 "anonymous";q=60;w=60
partner acme, burst                  20 served, then 429 "burst";q=20;w=1, "daily";q=100000;w=86400
login from one address                5 served, then 429 "login";q=5;w=900
globex (free) reports                60 served, then 429 "minute";q=60;w=60, "day";q=1000;w=86400
acme (pro) exports                  600 served, then 429 "minute";q=600;w=60, "day";q=100000;w=86400
tenant data without a key             0 served, then 403
health checks                      1000 served
`, out.String())
}

// The file on disk is the one embedded, and loads from its path too.
func TestLoadFromPath(t *testing.T) {
	lim, err := load("floodgate.yaml", nil)
	require.NoError(t, err)
	require.NoError(t, lim.Close())
}
