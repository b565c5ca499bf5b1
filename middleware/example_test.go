package middleware_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
)

// Limit every client IP to 2 requests per minute.
func Example() {
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) // omit in production
	lim, err := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.GCRA{Rate: core.PerMinute(2)}}), core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	m, err := middleware.New(lim, middleware.Options{})
	if err != nil {
		panic(err)
	}
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }))
	for i := 0; i < 3; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
		fmt.Println(w.Code, w.Header().Get("X-RateLimit-Remaining"), w.Header().Get("Retry-After"), w.Header().Get("RateLimit"))
	}
	// Output:
	// 200 1  "api";r=1;t=30
	// 200 0  "api";r=0;t=60
	// 429 0 30 "api";r=0;t=30
}

// Count only failed logins: the cost is taken before the handler and given
// back when it answers below 400.
func ExampleOptions_countIf() {
	lim, err := core.NewLimiter(core.MustPolicy("login", core.Limit{Name: "failures", Algorithm: core.GCRA{Rate: core.PerHour(3)}}))
	if err != nil {
		panic(err)
	}
	m, err := middleware.New(lim, middleware.Options{CountIf: func(status int) bool { return status >= 400 }})
	if err != nil {
		panic(err)
	}
	wrong := true
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if wrong {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, "welcome") // a response written: 200
	}))
	for i := 0; i < 5; i++ {
		wrong = i != 0 // the first attempt succeeds and is not counted
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/login", nil))
		fmt.Print(w.Code, " ")
	}
	fmt.Println()
	// Output:
	// 200 401 401 401 429
}
