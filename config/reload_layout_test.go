package config_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// A reload compares the sections it does not apply by what they say, not
// by how they are written: a file printed again by a YAML tool (its
// mappings' fields in another order, as yaml.Marshal sorts them; a list of
// one written as its value; {} as nothing) says the same. Every such
// reload was refused ("default: changed", "keys: changed"), so that an
// operator whose tooling prints the file could not change a limit at all:
// the tightened api policy here was never applied (10/min stayed). Changes
// that count are still refused.
func TestReloadReprintedFile(t *testing.T) {
	t.Parallel()
	const src = `
policies:
  api: 10/min
  other: 5/min
keys:
  ip:
    client_ip: {trusted_proxies: [10.0.0.0/8], ipv4_prefix: 24}
  pair: {join: [ip, site]}
  site: {header: X-Site}
default: {policy: api, key: ip}
routes:
  - {pattern: GET /o, policy: other, key: pair}
headers: {omit: [x-ratelimit], draft: 7}
store: {memory: {}}
`
	l := load(t, src, coretest.NewClock(t0))
	h := l.Handler(okHandler)

	var doc map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(src), &doc))
	doc["policies"].(map[string]any)["api"] = "5/min" // tightened
	doc["keys"].(map[string]any)["ip"].(map[string]any)["client_ip"].(map[string]any)["trusted_proxies"] = "10.0.0.0/8"
	doc["store"] = map[string]any{"memory": nil}
	printed, err := yaml.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, l.ReloadData("printed.yaml", printed), "%s", printed)
	assert.Equal(t, 5, serve(h, "GET", "/", "192.0.2.1:1", 30), "the tightened limit")

	for name, change := range map[string]func(map[string]any){
		"trusted proxies": func(d map[string]any) {
			d["keys"].(map[string]any)["ip"].(map[string]any)["client_ip"].(map[string]any)["trusted_proxies"] = "10.0.0.0/16"
		},
		"join order": func(d map[string]any) {
			d["keys"].(map[string]any)["pair"] = map[string]any{"join": []any{"site", "ip"}}
		},
		"default key": func(d map[string]any) {
			d["default"] = map[string]any{"policy": "api", "key": "site"}
		},
		"headers": func(d map[string]any) { d["headers"] = map[string]any{"omit": []any{"x-ratelimit"}} },
	} {
		var d map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(src), &d))
		change(d)
		out, err := yaml.Marshal(d)
		require.NoError(t, err)
		assert.ErrorIs(t, l.ReloadData("changed.yaml", out), core.ErrInvalidConfig, name)
	}
}
