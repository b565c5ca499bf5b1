package echolimit_test

import (
	"errors"
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

// One line limits every request of each client IP to 2 an hour.
func ExampleMustPerIP() {
	e := echo.New()
	e.Use(echolimit.MustPerIP("2/hour"))
	e.GET("/", func(c echo.Context) error { return c.String(200, "ok") })

	for range 3 {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		fmt.Println(w.Code, w.Header().Get("X-RateLimit-Remaining"), w.Header().Get("Content-Type"))
	}
	// Output:
	// 200 1 text/plain; charset=UTF-8
	// 200 0 text/plain; charset=UTF-8
	// 429 0 application/problem+json
}

// With a rate from configuration, PerIP returns the mistake as an error.
func ExamplePerIP() {
	rate := "100/mni" // from a flag or a file
	_, err := echolimit.PerIP(rate)
	var pe *core.ParseError
	fmt.Println(errors.Is(err, core.ErrInvalidConfig), errors.As(err, &pe) && pe.Column == 5)
	// Output: true true
}
