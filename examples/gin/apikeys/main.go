// Command apikeys limits a gin API whose state a fleet shares in Redis:
// each API key the service issued gets 1,000 requests a minute, every
// other request (no key, or a missing, forged or made-up one) 60 a minute
// per client IP, with the anonymous clients. It serves clients that
// connect directly; behind a proxy, give middleware.Options a Key of
// keyfunc.ClientIP with the proxies' addresses (README, "Behind a load
// balancer or a proxy"), or every anonymous client is the proxy.
//
//	go run ./apikeys   (in examples/gin, with Redis on 127.0.0.1:6379)
//	curl -i -H 'X-API-Key: key-of-acme' 127.0.0.1:8080/
package main

import (
	"log"
	"net/http"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
)

func main() {
	store, err := redisstore.New(redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"}), redisstore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(newEngine(core.WithStore(store)).Run("127.0.0.1:8080"))
}

// newEngine is the application; opts are the limiters' (the store, and a
// clock in tests).
func newEngine(opts ...core.Option) *gin.Engine {
	m, err := middleware.APIKeyOrIP(apiKey, middleware.Rate("api-key", "1000/min", opts...), middleware.Rate("anonymous", "60/min", opts...), middleware.Options{})
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
