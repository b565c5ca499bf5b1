package config_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Rules never share buckets, even when they name the same policy and key:
// the default and a route, identified and anonymous clients, two tiers.
func TestRulesNeverShareKeys(t *testing.T) {
	lim := load(t, `
policies: {one: 1/min}
keys:
  everyone: {const: all}
default: {policy: one, key: everyone, identified: {by: api-key, policy: one}}
routes:
  - {pattern: GET /a, policy: one, key: everyone}
  - pattern: GET /t
    key: everyone
    tiers: {by: plan, policies: {free: one, pro: one}}
`, coretest.NewClock(t0))
	h := lim.Handler(ok)
	anon := client{h, "198.51.100.1:1", nil}
	acme := client{h, "198.51.100.2:1", map[string]string{"X-API-Key": "key-acme"}}     // pro
	globex := client{h, "198.51.100.3:1", map[string]string{"X-API-Key": "key-globex"}} // free
	assert.Equal(t, 1, anon.served("GET", "/", 5))
	assert.Equal(t, 1, acme.served("GET", "/", 5), "identified: not the anonymous bucket")
	assert.Equal(t, 1, anon.served("GET", "/a", 5), "a route: not the default's bucket")
	assert.Equal(t, 1, acme.served("GET", "/t", 5))
	assert.Equal(t, 1, globex.served("GET", "/t", 5), "another tier: not the pro bucket")
	assert.Equal(t, 0, anon.served("GET", "/b", 5), "the const key: one bucket for all anonymous clients")
}

// Keys: trusted hops, joins, fallbacks, hashed users (refused without
// one), named headers from trusted proxies, NAT64 translators.
func TestKeys(t *testing.T) {
	lim := load(t, `
policies: {one: 1/min}
keys:
  ip: {client_ip: {trusted_hops: 1}}
  ip-and-agent: {join: [ip, agent]}
  agent: {header: User-Agent}
  agent-or-ip: {first: [agent, ip]}
  tenant: {user: tenant}
  real-ip: {client_ip: {trusted_proxies: [192.0.2.0/24], headers: [X-Real-IP], source: none}}
  siit: {client_ip: {nat64_prefixes: ["2001:db8:46::/96"]}}
routes:
  - {pattern: /hops, policy: one}
  - {pattern: /join, policy: one, key: ip-and-agent}
  - {pattern: /first, policy: one, key: agent-or-ip}
  - {pattern: /user, policy: one, key: tenant}
  - {pattern: /real, policy: one, key: real-ip}
  - {pattern: /siit, policy: one, key: siit}
`, coretest.NewClock(t0))
	h := lim.Handler(ok)
	xff := func(ip string, more map[string]string) client {
		hdr := map[string]string{"X-Forwarded-For": "203.0.113.1, " + ip}
		for k, v := range more {
			hdr[k] = v
		}
		return client{h, "10.1.1.1:1", hdr}
	}
	assert.Equal(t, 1, xff("198.51.100.1", nil).served("GET", "/hops", 5))
	assert.Equal(t, 1, xff("198.51.100.2", nil).served("GET", "/hops", 5), "the right-most entry is the client")

	ua := map[string]string{"User-Agent": "a"}
	assert.Equal(t, 1, xff("198.51.100.1", ua).served("GET", "/join", 5))
	assert.Equal(t, 1, xff("198.51.100.1", map[string]string{"User-Agent": "b"}).served("GET", "/join", 5))

	assert.Equal(t, 1, xff("198.51.100.1", ua).served("GET", "/first", 5))
	assert.Equal(t, 0, xff("198.51.100.9", ua).served("GET", "/first", 5), "the agent, whatever the address")
	assert.Equal(t, 1, xff("198.51.100.9", nil).served("GET", "/first", 5), "no agent: the address")

	assert.Equal(t, 1, xff("198.51.100.1", map[string]string{"X-API-Key": "key-acme"}).served("GET", "/user", 5))
	assert.Equal(t, http.StatusForbidden, xff("198.51.100.1", nil).do("GET", "/user").Code, "no user: refused, never unlimited")

	real := func(peer, ip string) client { return client{h, peer, map[string]string{"X-Real-IP": ip}} }
	assert.Equal(t, 1, real("192.0.2.10:1", "198.51.100.1").served("GET", "/real", 5))
	assert.Equal(t, 1, real("192.0.2.10:1", "198.51.100.2").served("GET", "/real", 5))
	assert.Equal(t, 1, real("203.0.113.5:1", "198.51.100.3").served("GET", "/real", 5), "an untrusted peer: its own address")
	assert.Equal(t, 0, real("203.0.113.5:1", "198.51.100.4").served("GET", "/real", 5))

	siit := func(v4 string) client { return client{h, "[2001:db8:46::" + v4 + "]:1", nil} }
	assert.Equal(t, 1, siit("198.51.100.1").served("GET", "/siit", 5))
	assert.Equal(t, 1, siit("198.51.100.2").served("GET", "/siit", 5), "IPv4 clients of the translator apart")
	assert.Equal(t, 0, client{h, "198.51.100.2:1", nil}.served("GET", "/siit", 5), "and keyed as their IPv4 address")
}

// dry_run decides and reports, never refuses; the hooks of
// Options.Middleware are called; headers.draft chooses the IETF draft;
// aliases are followed.
func TestDryRunHooksHeadersAliases(t *testing.T) {
	var denied int
	opts := options(coretest.NewClock(t0))
	opts.Middleware.OnDenied = func(*http.Request, core.Result) { denied++ }
	l, err := config.Parse("f.yaml", []byte(`
policies: {api: &r 1/min}
dry_run: true
default: {policy: api}
`), opts)
	require.NoError(t, err)
	defer l.Close()
	c := client{l.Handler(ok), "198.51.100.1:1", nil}
	assert.Equal(t, 5, c.served("GET", "/", 5))
	assert.Equal(t, 4, denied)
	require.NoError(t, l.Check(context.Background()), "nothing to check in memory")

	lim := load(t, `
policies: {api: 2/min}
default: {policy: &p api}
routes:
  - {pattern: /x, policy: *p}
headers: {draft: 7, omit: [x-ratelimit]}
`, coretest.NewClock(t0))
	c = client{lim.Handler(ok), "198.51.100.1:1", nil}
	w := c.do("GET", "/x")
	assert.Equal(t, "limit=2, remaining=1, reset=30", w.Header().Get("RateLimit"))
	assert.Empty(t, w.Header().Get("X-RateLimit-Limit"))
	assert.Equal(t, 1, c.served("GET", "/x", 5))
	assert.Equal(t, 2, c.served("GET", "/", 5), "the alias named the policy; the route has its own bucket")
}
