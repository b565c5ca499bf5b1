package middleware_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
)

// Behind a load balancer (here at 10.0.0.5) every request comes from the
// balancer's address: PerIP counts all clients in its one bucket, and a
// key from keyfunc.ClientIP naming the balancer's network counts each
// client apart. This is the README's recipe "Behind a load balancer or a
// proxy", played.
func ExampleNew_behindAProxy() {
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) // omit in production
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{
		TrustedProxyCIDRs: []string{"10.0.0.5/32"}, // the load balancers' addresses, and no wider
	})
	if err != nil {
		panic(err)
	}
	m, err := middleware.New(middleware.Rate("per-ip", "2/min", core.WithClock(clk)), middleware.Options{Key: ip})
	if err != nil {
		panic(err)
	}
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	behind := m.Handler(ok)
	perIP := middleware.MustPerIP("2/min", core.WithClock(clk)).Handler(ok)
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"PerIP", perIP}, {"New with ClientIP", behind}} {
		fmt.Print(h.name, ":")
		for _, client := range []string{"198.51.100.1", "198.51.100.1", "203.0.113.2", "203.0.113.3"} {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = "10.0.0.5:41000" // the load balancer
			r.Header.Set("X-Forwarded-For", client)
			w := httptest.NewRecorder()
			h.h.ServeHTTP(w, r)
			fmt.Print(" ", w.Code)
		}
		fmt.Println()
	}
	// Output:
	// PerIP: 200 200 429 429
	// New with ClientIP: 200 200 200 200
}
