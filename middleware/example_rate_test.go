package middleware_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
)

// Limit each client IP to 2 requests a minute, in one expression. In a
// program: http.ListenAndServe(addr, middleware.MustPerIP("100/min").Handler(mux)).
func ExamplePerIP() {
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) // omit in production
	h := middleware.MustPerIP("2/min", core.WithClock(clk)).Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	for range 3 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
		fmt.Println(w.Code, w.Header().Get("RateLimit"), w.Header().Values("Retry-After"))
	}
	_, err := middleware.PerIP("100/mni")
	fmt.Println(err)
	// Output:
	// 200 "per-ip";r=1;t=30 []
	// 200 "per-ip";r=0;t=60 []
	// 429 "per-ip";r=0;t=30 [30]
	// middleware: New: rate "100/mni" of "per-ip": core: unknown unit "mni" at column 5 (did you mean "min"?): want ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week: invalid rate limit configuration
}

// Rate strings wherever a limiter is given: a default and a login route.
func ExampleRate() {
	rt := middleware.NewRoutes(middleware.Rate("api", "100/min"))
	if err := rt.Add("POST /login", middleware.Rate("login", "5/15m")); err != nil {
		panic(err)
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	if err != nil {
		panic(err)
	}
	h := m.Handler(http.NotFoundHandler())
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/login", nil))
	fmt.Println(w.Header().Get("RateLimit-Policy"))
	// Output:
	// "login";q=5;w=900
}

// Clients with a valid API key get 3 requests a minute per account; the
// rest, forged keys included, 1 per minute per IP.
func ExampleAPIKeyOrIP() {
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) // omit in production
	accounts := map[string]string{"k-123": "acme"}                        // a real service looks keys up in its database
	identify := func(r *http.Request) (string, bool) {
		acct, ok := accounts[r.Header.Get("X-API-Key")]
		return acct, ok
	}
	m, err := middleware.APIKeyOrIP(identify,
		middleware.Rate("api-key", "3/min", core.WithClock(clk)),
		middleware.Rate("anonymous", "1/min", core.WithClock(clk)),
		middleware.Options{})
	if err != nil {
		panic(err)
	}
	h := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, key := range []string{"k-123", "k-123", "", "", "forged-1", "forged-2", "k-123", "k-123"} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if key != "" {
			r.Header.Set("X-API-Key", key)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Printf("%-10q %d %s\n", key, w.Code, w.Header().Get("RateLimit-Policy"))
	}
	// Output:
	// "k-123"    200 "api-key";q=3;w=60
	// "k-123"    200 "api-key";q=3;w=60
	// ""         200 "anonymous";q=1;w=60
	// ""         429 "anonymous";q=1;w=60
	// "forged-1" 429 "anonymous";q=1;w=60
	// "forged-2" 429 "anonymous";q=1;w=60
	// "k-123"    200 "api-key";q=3;w=60
	// "k-123"    429 "api-key";q=3;w=60
}
