package config_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The example file of the schema, end to end through net/http: every
// section does what its comments say.
func TestExampleFile(t *testing.T) {
	clk := coretest.NewClock(t0)
	lim, err := config.Load(examplePath, options(clk))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, lim.Close()) })
	h := lim.Handler(ok)
	lb := "10.0.0.5:4000" // the load balancer, a trusted proxy
	via := func(ip string, hdr map[string]string) client {
		h2 := map[string]string{"X-Forwarded-For": ip}
		for k, v := range hdr {
			h2[k] = v
		}
		return client{h, lb, h2}
	}

	t.Run("anonymous clients by IP, behind the trusted proxy", func(t *testing.T) {
		a := via("198.51.100.1", nil)
		assert.Equal(t, 60, a.served("GET", "/", 100))
		w := a.do("GET", "/")
		assert.Equal(t, http.StatusTooManyRequests, w.Code)
		assert.Equal(t, "1", w.Header().Get("Retry-After"))
		assert.Empty(t, w.Header().Get("X-RateLimit-Remaining"), "headers.omit: x-ratelimit")
		assert.Equal(t, `"anonymous";r=0;t=1`, w.Header().Get("RateLimit"))
		assert.Equal(t, 60, via("198.51.100.2", nil).served("GET", "/", 100), "another client")
		// A client's own X-Forwarded-For is not believed from an
		// untrusted peer: a direct client is counted by its address.
		direct := client{h, "203.0.113.9:1", map[string]string{"X-Forwarded-For": "198.51.100.77"}}
		assert.Equal(t, 60, direct.served("GET", "/", 100))
		assert.Equal(t, 0, client{h, "203.0.113.9:2", nil}.served("GET", "/", 1))
		clk.Advance(time.Second)
		assert.Equal(t, 1, a.served("GET", "/", 100), "one a second comes back")
	})

	t.Run("API-key clients by account; forged keys as anonymous", func(t *testing.T) {
		forger := via("198.51.100.3", nil)
		for i := range 100 {
			forger.header["X-API-Key"] = "forged-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
			forger.do("GET", "/")
		}
		forger.header["X-API-Key"] = "another-forgery"
		assert.Equal(t, 0, forger.served("GET", "/", 1), "100 forged keys took the address's 60")
		acme := via("198.51.100.3", map[string]string{"X-API-Key": "key-acme"})
		assert.Equal(t, 20, acme.served("GET", "/", 100), "the partner policy's burst of 20/s")
		w := acme.do("GET", "/")
		assert.Equal(t, `"burst";q=20;w=1, "daily";q=100000;w=86400`, w.Header().Get("RateLimit-Policy"))
		// The account is counted across addresses.
		assert.Equal(t, 0, via("198.51.100.4", map[string]string{"X-API-Key": "key-acme"}).served("GET", "/", 1))
		assert.Equal(t, 20, via("198.51.100.4", map[string]string{"X-API-Key": "key-globex"}).served("GET", "/", 100))
	})

	t.Run("login route, its variants in its bucket", func(t *testing.T) {
		c := via("198.51.100.5", nil)
		assert.Equal(t, 5, c.served("POST", "/login", 100))
		assert.Equal(t, http.StatusTooManyRequests, c.do("POST", "/login/").Code)
		assert.Equal(t, http.StatusTooManyRequests, c.do("post", "/LOGIN").Code)
		assert.Equal(t, 60, c.served("GET", "/", 100), "the default is another bucket")
	})

	t.Run("tenant tiers on the tenants' data, shared by both routes", func(t *testing.T) {
		globex := via("198.51.100.6", map[string]string{"X-API-Key": "key-globex"})
		assert.Equal(t, 30, globex.served("GET", "/tenants/globex/reports", 30))
		assert.Equal(t, 30, globex.served("GET", "/tenants/globex/exports", 100), "free: 60/min for both routes")
		acme := via("198.51.100.6", map[string]string{"X-API-Key": "key-acme"})
		assert.Equal(t, 600, acme.served("GET", "/tenants/acme/exports", 1000), "pro")
		// No key: no tenant, refused (never unlimited); an unknown plan too.
		assert.Equal(t, http.StatusForbidden, via("198.51.100.6", nil).do("GET", "/tenants/acme/exports").Code)
		accounts["key-initech"] = "initech"
		defer delete(accounts, "key-initech")
		assert.Equal(t, http.StatusForbidden, via("198.51.100.6", map[string]string{"X-API-Key": "key-initech"}).do("GET", "/tenants/initech/reports").Code)
	})

	t.Run("health checks are unlimited", func(t *testing.T) {
		assert.Equal(t, 1000, via("198.51.100.7", nil).served("GET", "/healthz", 1000))
		assert.Equal(t, 60, via("198.51.100.7", nil).served("GET", "/", 100))
	})
}

// JSON is YAML: the same configuration in JSON loads and limits alike.
func TestJSON(t *testing.T) {
	lim := load(t, `{
  "policies": {"api": "2/min", "login": "1/min"},
  "default": {"policy": "api"},
  "routes": [{"pattern": "POST /login", "policy": "login"}]
}`, coretest.NewClock(t0))
	c := client{lim.Handler(ok), "198.51.100.1:1", nil}
	assert.Equal(t, 2, c.served("GET", "/", 10))
	assert.Equal(t, 1, c.served("POST", "/login", 10))
}
