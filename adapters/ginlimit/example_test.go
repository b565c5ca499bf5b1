package ginlimit_test

import (
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
	e.Use(ginlimit.Limit(m))
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
