// Command apikeys limits a gin API whose state a fleet shares in Redis:
// each API key the service issued gets 1,000 requests a minute, every
// other request (no key, or a missing, forged or made-up one) 60 a minute
// per client IP, with the anonymous clients.
//
//	go run ./apikeys   (in examples/gin, with Redis on 127.0.0.1:6379)
//	go run ./apikeys -trusted-proxies 10.0.0.5/32   (behind load balancers there)
//	curl -i -H 'X-API-Key: key-of-acme' 127.0.0.1:8080/
package main

import (
	"flag"
	"log"
	"net/http"
	"strings"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
)

func main() {
	proxies := flag.String("trusted-proxies", "", "comma-separated networks of the proxies in front (load balancers: \"10.0.0.5/32\"), whose X-Forwarded-For is believed; empty: clients connect directly")
	flag.Parse()
	store, err := redisstore.New(redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"}), redisstore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(newEngine(splitList(*proxies), core.WithStore(store)).Run("127.0.0.1:8080"))
}

// newEngine is the application; opts are the limiters' (the store, and a
// clock in tests). Anonymous clients are counted by their IP address: the
// connection's, or, from the proxies in the networks trustedProxies, the
// right-most X-Forwarded-For entry outside them.
// Behind a proxy left out of them every anonymous client is the proxy's
// one address, and one client's 60 requests refuse all the others.
func newEngine(trustedProxies []string, opts ...core.Option) *gin.Engine {
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{TrustedProxyCIDRs: trustedProxies})
	if err != nil {
		log.Fatal(err)
	}
	m, err := middleware.APIKeyOrIP(apiKey, middleware.Rate("api-key", "1000/min", opts...), middleware.Rate("anonymous", "60/min", opts...), middleware.Options{Key: ip})
	if err != nil {
		log.Fatal(err)
	}
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	e.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "hello\n") })
	return e
}

// apiKey vouches for the keys the service issued, and for nothing else.
func apiKey(r *http.Request) (string, bool) {
	key := r.Header.Get("X-API-Key")
	return key, issued[key]
}

// issued are the API keys of the service's clients (a database, in life).
var issued = map[string]bool{"key-of-acme": true, "key-of-globex": true}

// splitList splits a comma-separated list, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
