// Command tiers limits each tenant by its plan, and shows a tenant
// switching plans:
//
//	free: 60 requests a minute and 1,000 a day
//	pro:  600 requests a minute and 100,000 a day
//
// The tenant is the one whose API key (X-API-Key) the request carries,
// looked up in a fixed directory, with its plan: a request naming no
// tenant or a made-up key is refused (403), and spends no tenant's plan.
// Never key tenants by a header the client chooses freely (an X-Tenant):
// anyone could spend anyone's plan.
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
	dir := newDirectory()
	h, err := newHandler(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	demo(os.Stdout, h, dir)
}

// newDirectory is the demo's: acme on pro, globex on free.
func newDirectory() *directory {
	return &directory{
		keys:  map[string]string{"key-of-acme": "acme", "key-of-globex": "globex"},
		plans: map[string]string{"acme": "pro", "globex": "free"},
	}
}

// directory maps API keys to tenants and tenants to plans (a database, in
// life); plans can change while serving.
type directory struct {
	mu    sync.RWMutex
	keys  map[string]string
	plans map[string]string
}

// tenant is the tenant whose API key r carries, false for none or a
// made-up one.
func (d *directory) tenant(r *http.Request) (string, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	t, ok := d.keys[r.Header.Get("X-API-Key")]
	return t, ok
}

// tier is the plan of the tenant whose API key r carries.
func (d *directory) tier(r *http.Request) (string, error) {
	t, ok := d.tenant(r)
	if !ok {
		return "", fmt.Errorf("no valid API key: %w", keyfunc.ErrNoKey)
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	plan, ok := d.plans[t]
	if !ok {
		return "", fmt.Errorf("tenant %s has no plan: %w", t, keyfunc.ErrNoKey)
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
	// Each tenant counted as one, whatever key or address it calls with;
	// the tenant as its API key verified, hashed.
	m, err := middleware.NewSelect(sel, middleware.Options{Key: keyfunc.User(dir.tenant)})
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
			r.Header.Set("X-API-Key", "key-of-"+tenant)
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
