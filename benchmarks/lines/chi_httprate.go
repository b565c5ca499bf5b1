//go:build ignore

// Task 1 with go-chi/httprate v0.16.1: every client IP of a chi router
// limited to 100 requests a minute (RemoteAddr, IPv6 by /64, a sliding
// window counter; X-RateLimit-* headers, a plain-text 429).
package main

import (
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"
)

func main() {
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", newRouter()))
}

func newRouter() http.Handler {
	r := chi.NewRouter()
	r.Use(httprate.LimitByIP(100, time.Minute))
	r.Get("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "hello") })
	return r
}
