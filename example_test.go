package floodgate_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
)

// The package documentation's example, run: a limiter of 100 per minute
// with a burst of 20, every error checked, then the same limiter as HTTP
// middleware.
func Example() {
	if err := run(context.Background()); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// allowed: true, remaining: 19
	// 200 19
}

func run(ctx context.Context) error {
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) // omit in production
	p, err := core.Single("api", core.GCRA{Rate: core.PerMinute(100), Burst: 20})
	if err != nil {
		return err
	}
	lim, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		return err
	}
	res, err := lim.Allow(ctx, "client-1")
	if err != nil {
		return err // the store failed: decide fail-open or fail-closed
	}
	fmt.Printf("allowed: %v, remaining: %d\n", res.Allowed, res.Remaining)

	m, err := middleware.New(lim, middleware.Options{})
	if err != nil {
		return err
	}
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	fmt.Println(w.Code, w.Header().Get("X-RateLimit-Remaining"))
	return nil
}
