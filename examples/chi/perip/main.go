// Command perip limits every client IP of a chi router to 100 requests a
// minute, in one line: the client IP from RemoteAddr (IPv6 by /64), every
// rate-limit header, a problem+json 429.
//
//	go run ./perip   (in examples/chi)
//	curl -i 127.0.0.1:8080/
package main

import (
	"fmt"
	"log"
	"net/http"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/go-chi/chi/v5"
)

func main() {
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", newRouter()))
}

// newRouter is the application; opts are the limiter's (tests pass a clock).
func newRouter(opts ...core.Option) http.Handler {
	r := chi.NewRouter()
	r.Use(chilimit.MustPerIP("100/min", opts...))
	r.Get("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "hello") })
	return r
}
