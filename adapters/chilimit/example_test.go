package chilimit_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

// Per-route limits keyed by chi's pattern: /users/{id} is one route
// however many ids are asked for.
func Example() {
	users, _ := core.NewLimiter(core.MustPolicy("users", core.Limit{Name: "users", Algorithm: core.GCRA{Rate: core.PerHour(2)}}))
	routes := middleware.NewRoutes(nil)
	if err := routes.Add("GET /users/{id}", users); err != nil {
		panic(err)
	}
	m, err := middleware.NewSelect(routes, middleware.Options{})
	if err != nil {
		panic(err)
	}

	r := chi.NewRouter()
	r.Group(func(r chi.Router) {
		r.Use(chilimit.Limit(m)) // inline: chi knows the pattern here
		r.Get("/users/{id}", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	})

	for _, id := range []string{"1", "2", "3"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", "/users/"+id, nil))
		fmt.Println(id, w.Code, w.Header().Get("X-RateLimit-Remaining"))
	}
	// Output:
	// 1 200 1
	// 2 200 0
	// 3 429 0
}

// LimitMux goes on the root router, resolving the pattern before chi
// routes the request.
func ExampleLimitMux() {
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) // omit in production
	l, _ := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.GCRA{Rate: core.PerMinute(1)}}), core.WithClock(clk))
	m, _ := middleware.New(l, middleware.Options{})

	r := chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r))
	r.Get("/hello", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })

	for range 2 {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", "/hello", nil))
		fmt.Printf("%d Retry-After=%q\n", w.Code, w.Header().Get("Retry-After"))
	}
	// Output:
	// 200 Retry-After=""
	// 429 Retry-After="60"
}

// One line limits every request of each client IP to 2 an hour.
func ExampleMustPerIP() {
	r := chi.NewRouter()
	r.Use(chilimit.MustPerIP("2/hour"))
	r.Get("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })

	for range 3 {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
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
	_, err := chilimit.PerIP(rate)
	var pe *core.ParseError
	fmt.Println(errors.Is(err, core.ErrInvalidConfig), errors.As(err, &pe) && pe.Column == 5)
	// Output: true true
}
