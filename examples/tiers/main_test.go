package main

import (
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemo(t *testing.T) {
	dir := &directory{plans: map[string]string{"acme": "pro", "globex": "free"}}
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
