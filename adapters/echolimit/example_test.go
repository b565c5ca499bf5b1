package echolimit_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
)

// Per-route limits keyed by echo's template: /users/:id is one route
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

	e := echo.New()
	e.Use(echolimit.Limit(m))
	e.GET("/users/:id", func(c echo.Context) error { return c.String(200, "ok") })

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
