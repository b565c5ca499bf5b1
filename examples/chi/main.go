// Command chi limits a chi router per route: /users/{id} is one route
// however many ids are requested.
//
//	go run ./examples/chi
//	curl -i 127.0.0.1:8080/users/1
//
// Behind a load balancer or a reverse proxy, name its networks (and no
// wider) with -trusted-proxies 10.0.0.5/32.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	proxies := flag.String("trusted-proxies", "", "comma-separated networks of the proxies in front (load balancers: \"10.0.0.5/32\"), whose X-Forwarded-For is believed; empty: clients connect directly")
	flag.Parse()
	h, err := newRouter(splitList(*proxies))
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
// user pages and 5 for login attempts. A client is its IP address: the
// connection's, or, from the proxies in the networks trustedProxies, the
// right-most X-Forwarded-For entry outside them. Behind a proxy left out
// of them every client is the proxy's one address: one client's 5 login
// attempts would refuse everyone's for a minute.
func newRouter(trustedProxies []string) (http.Handler, error) {
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{TrustedProxyCIDRs: trustedProxies})
	if err != nil {
		return nil, err
	}
	routes := middleware.NewRoutes(middleware.Rate("default", "100/min"))
	if err := routes.Add("GET /users/{id}", middleware.Rate("users", "10/min")); err != nil {
		return nil, err
	}
	if err := routes.Add("POST /login", middleware.Rate("login", "5/min")); err != nil {
		return nil, err
	}
	m, err := middleware.NewSelect(routes, middleware.Options{Key: ip})
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
