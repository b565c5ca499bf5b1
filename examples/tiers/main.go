// Command tiers limits each tenant by its plan, and shows a tenant
// switching plans:
//
//	free: 60 requests a minute and 1,000 a day
//	pro:  600 requests a minute and 100,000 a day
//
// The tenant comes from the X-Tenant header and its plan from a fixed
// directory; a real service takes the tenant from authentication, never
// from a header the client chooses freely.
//
//	go run ./examples/tiers
package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
)

func main() {
	dir := &directory{plans: map[string]string{"acme": "pro", "globex": "free"}}
	h, err := newHandler(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	demo(os.Stdout, h, dir)
}

// directory maps tenants to plans; plans can change while serving.
type directory struct {
	mu    sync.RWMutex
	plans map[string]string
}

func (d *directory) tier(r *http.Request) (string, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	plan, ok := d.plans[r.Header.Get("X-Tenant")]
	if !ok {
		return "", fmt.Errorf("unknown tenant: %w", keyfunc.ErrNoKey)
	}
	return plan, nil
}

func (d *directory) set(tenant, plan string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.plans[tenant] = plan
}

// plan is a limiter of perMinute and perDay requests.
func plan(name string, perMinute, perDay int64, opts ...core.Option) (*core.Limiter, error) {
	p, err := core.NewPolicy(name,
		core.Limit{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(perMinute)}},
		core.Limit{Name: "day", Algorithm: core.FixedWindow{Quota: perDay, Window: 24 * time.Hour}},
	)
	if err != nil {
		return nil, err
	}
	return core.NewLimiter(p, opts...)
}

// newHandler limits each tenant (the key) by its plan (the tier); opts
// are the limiters' options (tests pass a clock).
func newHandler(dir *directory, opts ...core.Option) (http.Handler, error) {
	free, err := plan("free", 60, 1_000, opts...)
	if err != nil {
		return nil, err
	}
	pro, err := plan("pro", 600, 100_000, opts...)
	if err != nil {
		return nil, err
	}
	sel, err := middleware.Tiers(dir.tier, map[string]middleware.Limiter{"free": free, "pro": pro})
	if err != nil {
		return nil, err
	}
	m, err := middleware.NewSelect(sel, middleware.Options{Key: keyfunc.Header("X-Tenant")})
	if err != nil {
		return nil, err
	}
	return m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})), nil
}

// demo sends requests as tenants until they are limited, upgrades one
// and goes on.
func demo(out io.Writer, h http.Handler, dir *directory) {
	burst := func(tenant string) {
		for n := 0; n < 1_000; n++ {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("X-Tenant", tenant)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			switch w.Code {
			case http.StatusOK:
				continue
			case http.StatusTooManyRequests:
				fmt.Fprintf(out, "%s: %d served, then 429, Retry-After %s s\n", tenant, n, w.Header().Get("Retry-After"))
				fmt.Fprintf(out, "  RateLimit-Policy: %s\n", w.Header().Get("RateLimit-Policy"))
			default:
				fmt.Fprintf(out, "%s: refused, %d\n", tenant, w.Code)
			}
			return
		}
		fmt.Fprintf(out, "%s: 1000 served\n", tenant)
	}
	burst("globex")
	burst("acme")
	fmt.Fprintln(out, "globex upgrades to pro")
	dir.set("globex", "pro")
	burst("globex")
	burst("initech")
}
