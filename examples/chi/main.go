// Command chi limits a chi router per route: /users/{id} is one route
// however many ids are requested.
//
//	go run ./examples/chi
//	curl -i 127.0.0.1:8080/users/1
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	h, err := newRouter()
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("listening on", ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

// newRouter is the application: 100 requests a minute per client, 10 for
// user pages and 5 for login attempts.
func newRouter() (http.Handler, error) {
	routes := middleware.NewRoutes(middleware.Rate("default", "100/min"))
	if err := routes.Add("GET /users/{id}", middleware.Rate("users", "10/min")); err != nil {
		return nil, err
	}
	if err := routes.Add("POST /login", middleware.Rate("login", "5/min")); err != nil {
		return nil, err
	}
	m, err := middleware.NewSelect(routes, middleware.Options{})
	if err != nil {
		return nil, err
	}

	r := chi.NewRouter()
	// LimitMux resolves chi's route pattern before routing, so it can go
	// on the root router; chilimit.Limit would go inline (r.With, r.Group).
	r.Use(chilimit.LimitMux(m, r))
	r.Get("/hello", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "hello") })
	r.Get("/users/{id}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "user", chi.URLParam(r, "id")) })
	r.Post("/login", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "welcome") })
	return r, nil
}
