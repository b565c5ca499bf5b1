package ginlimit_test

import (
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// Per-route limits keyed by gin's template: /users/:id is one route
// however many ids are asked for.
func Example() {
	users, _ := core.NewLimiter(core.MustPolicy("users", core.Limit{Name: "users", Algorithm: core.GCRA{Rate: core.PerHour(2)}}))
	routes := middleware.NewRoutes(nil)
	if err := routes.Add("GET /users/:id", users); err != nil {
		panic(err)
	}
	m, err := middleware.NewSelect(routes, middleware.Options{})
	if err != nil {
		panic(err)
	}

	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	e.GET("/users/:id", func(c *gin.Context) { c.String(200, "ok") })

	for _, id := range []string{"1", "2", "3"} {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest("GET", "/users/"+id, nil))
		fmt.Println(id, w.Code, w.Header().Get("X-RateLimit-Remaining"))
	}
	// Output:
	// 1 200 1
	// 2 200 0
	// 3 429 0
}

// Opting in to gin's ClientIP: restrict the trusted proxies first.
func ExampleClientIP() {
	e := gin.New()
	if err := e.SetTrustedProxies([]string{"10.0.0.0/8"}); err != nil {
		panic(err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.1.2.3:4567"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	key, _ := ginlimit.ClientIP(e)(r)
	fmt.Println(key)
	// Output: 203.0.113.9/32
}

// One line limits every request of each client IP to 2 an hour.
func ExampleMustPerIP() {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.Use(ginlimit.MustPerIP("2/hour"))
	e.GET("/", func(c *gin.Context) { c.String(200, "ok") })

	for range 3 {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		fmt.Println(w.Code, w.Header().Get("X-RateLimit-Remaining"), w.Header().Get("Content-Type"))
	}
	// Output:
	// 200 1 text/plain; charset=utf-8
	// 200 0 text/plain; charset=utf-8
	// 429 0 application/problem+json
}

// With a rate from configuration, PerIP returns the mistake as an error.
func ExamplePerIP() {
	rate := "100/mni" // from a flag or a file
	_, err := ginlimit.PerIP(rate)
	var pe *core.ParseError
	fmt.Println(errors.Is(err, core.ErrInvalidConfig), errors.As(err, &pe) && pe.Column == 5)
	// Output: true true
}
