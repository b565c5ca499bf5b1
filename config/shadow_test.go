package config_test

import (
	"fmt"
	"net/http/httptest"
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

// TestReloadShadowLimits: a reload that adds, changes or removes only a
// shadow limit applies it, as one of an enforced limit does (it was taken
// for no change and silently dropped).
func TestReloadShadowLimits(t *testing.T) {
	t.Parallel()
	src := func(api string) []byte {
		return []byte("policies: {api: \"" + api + "\"}\ndefault: {policy: api}\n")
	}
	l, err := config.Parse("f.yaml", src("minute: 3/min"), options(coretest.NewClock(t0)))
	require.NoError(t, err)
	defer l.Close()
	shadows := func(remote string) []string {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		a, ok := l.Begin(httptest.NewRecorder(), r, "")
		require.True(t, ok)
		var names []string
		res := a.Result()
		for _, lr := range res.ShadowLimits() {
			names = append(names, fmt.Sprintf("%s %d", lr.Name, lr.Quota))
		}
		return names
	}
	assert.Empty(t, shadows("198.51.100.1:1"))
	require.NoError(t, l.ReloadData("f.yaml", src("minute: 3/min; trial: shadow 1/min")))
	assert.Equal(t, []string{"trial 1"}, shadows("198.51.100.2:1"), "a shadow limit added")
	require.NoError(t, l.ReloadData("f.yaml", src("minute: 3/min; trial: shadow 2/min")))
	assert.Equal(t, []string{"trial 2"}, shadows("198.51.100.3:1"), "a shadow limit changed")
	require.NoError(t, l.ReloadData("f.yaml", src("minute: 3/min")))
	assert.Empty(t, shadows("198.51.100.4:1"), "a shadow limit removed")
}
