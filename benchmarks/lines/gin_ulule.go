//go:build ignore

// Task 2 with ulule/limiter v3.11.2: a gin API on Redis; each issued API
// key 1,000 requests a minute, every other request 60 a minute per client
// IP. ulule has one rate per middleware: two middlewares and a dispatcher.
// Its gin default key is c.ClientIP(), which trusts X-Forwarded-For from
// every peer, so the anonymous key is the limiter's own GetIPKey
// (RemoteAddr, IPv6 by /64 with the mask option).
package main

import (
	"log"
	"net"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	mgin "github.com/ulule/limiter/v3/drivers/middleware/gin"
	sredis "github.com/ulule/limiter/v3/drivers/store/redis"
)

func main() {
	store, err := sredis.NewStore(redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"}))
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(newEngine(store).Run("127.0.0.1:8080"))
}

func newEngine(store limiter.Store) *gin.Engine {
	keyed := mgin.NewMiddleware(limiter.New(store, limiter.Rate{Period: time.Minute, Limit: 1000}),
		mgin.WithKeyGetter(func(c *gin.Context) string { return "key:" + c.GetHeader("X-API-Key") }))
	anon := limiter.New(store, limiter.Rate{Period: time.Minute, Limit: 60}, limiter.WithIPv6Mask(net.CIDRMask(64, 128)))
	anonymous := mgin.NewMiddleware(anon, mgin.WithKeyGetter(func(c *gin.Context) string { return "ip:" + anon.GetIPKey(c.Request) }))
	e := gin.New()
	e.Use(func(c *gin.Context) {
		if issued[c.GetHeader("X-API-Key")] {
			keyed(c)
		} else {
			anonymous(c)
		}
	})
	e.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "hello\n") })
	return e
}

var issued = map[string]bool{"key-of-acme": true, "key-of-globex": true}
