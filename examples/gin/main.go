// Command gin limits a gin engine per route: /users/:id is one route
// however many ids are requested.
//
//	go run ./examples/gin
//	curl -i 127.0.0.1:8080/users/1
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
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
	if err := routes.Add("GET /users/:id", middleware.Rate("users", "10/min")); err != nil {
		return nil, err
	}
	if err := routes.Add("POST /login", middleware.Rate("login", "5/min")); err != nil {
		return nil, err
	}
	m, err := middleware.NewSelect(routes, middleware.Options{})
	if err != nil {
		return nil, err
	}

	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(gin.Recovery(), ginlimit.Limit(m, r)) // the template is c.FullPath(); r tells the methods of each handler
	r.GET("/hello", func(c *gin.Context) { c.String(http.StatusOK, "hello\n") })
	r.GET("/users/:id", func(c *gin.Context) { c.String(http.StatusOK, "user %s\n", c.Param("id")) })
	r.POST("/login", func(c *gin.Context) { c.String(http.StatusOK, "welcome\n") })
	return r, nil
}
