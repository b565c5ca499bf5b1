//go:build ignore

// Task 1 with ulule/limiter v3.11.2: every client IP of a chi router
// limited to 100 requests a minute (RemoteAddr; IPv6 by /64 only with the
// mask option, /128 by default; a fixed window; X-RateLimit-* headers, a
// plain-text 429).
package main

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/middleware/stdlib"
	"github.com/ulule/limiter/v3/drivers/store/memory"
)

func main() {
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", newRouter()))
}

func newRouter() http.Handler {
	r := chi.NewRouter()
	r.Use(stdlib.NewMiddleware(limiter.New(memory.NewStore(), limiter.Rate{Period: time.Minute, Limit: 100}, limiter.WithIPv6Mask(net.CIDRMask(64, 128)))).Handler)
	r.Get("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "hello") })
	return r
}
