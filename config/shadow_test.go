package config_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shadow limit written in a policy is never enforced, nor written in
// the headers.
func TestShadowLimit(t *testing.T) {
	l, err := config.Parse("f.yaml", []byte(`
policies: {api: "minute: 3/min; trial: shadow 1/min"}
default: {policy: api}
`), options(coretest.NewClock(t0)))
	require.NoError(t, err)
	defer l.Close()
	c := client{l.Handler(ok), "198.51.100.1:1", nil}
	w := c.do("GET", "/")
	assert.Equal(t, `"minute";q=3;w=60`, w.Header().Get("RateLimit-Policy"), "the shadow limit is in no header")
	assert.Equal(t, 2, c.served("GET", "/", 5), "the enforced limit alone decides")
}
