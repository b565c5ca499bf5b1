// Command overrides limits every tenant by a default rate, except tenants
// with a contract of their own, whose limits come from a billing service
// consulted at decision time (cached). It shows a contract raised while
// serving (the tenant keeps its count), the billing service failing (a
// tenant already known keeps its contract and its count, a tenant not yet
// known gets the default: never unlimited), and the default raised for
// everyone:
//
//	default:  5 requests an hour
//	acme:    20 requests an hour, then 30
//
// The tenant is the one whose API key (X-API-Key) the request carries,
// looked up; a request without a valid key is refused (403). Never key
// tenants by a header the client chooses freely (an X-Tenant): each name
// made up would get a default budget of its own, without end, and anyone
// could spend a tenant's contract by naming it.
//
//	go run ./examples/overrides
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
)

func main() {
	clk := &stepClock{t: time.Now()}
	b := &billing{contracts: map[string]int64{"acme": 20}}
	o, h, err := newHandler(b, clk)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	demo(os.Stdout, h, o, b, clk)
}

// billing holds the tenants' contracts: requests an hour.
type billing struct {
	mu        sync.Mutex
	contracts map[string]int64
	down      bool
}

// contract is the override provider: the tenant's own policy, if any. It
// is asked with the key the limiter decides: the key tenantKey gives.
func (b *billing) contract(_ context.Context, tenant string) (*core.Policy, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down {
		return nil, false, errors.New("billing: unavailable")
	}
	n, ok := b.contracts[strings.TrimPrefix(tenant, "tenant:")]
	if !ok {
		return nil, false, nil
	}
	// One policy per tenant: its name keeps its state apart, and a change
	// of its limits applies to the count kept.
	p, err := hourly("contract-"+tenant, n)
	return p, err == nil, err
}

func (b *billing) set(tenant string, n int64, down bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.contracts[tenant], b.down = n, down
}

func hourly(name string, n int64) (*core.Policy, error) {
	return core.NewPolicy(name, core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: n, Window: time.Hour}})
}

// stepClock is a clock the demo moves on by hand, so that its output does
// not depend on how fast it runs.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// apiKeys are the tenants' API keys: key → tenant (a database, in life).
var apiKeys = map[string]string{"key-of-acme": "acme", "key-of-globex": "globex", "key-of-initech": "initech"}

// tenantKey keys a request by the tenant its API key belongs to, which the
// provider looks up; a request without a valid key has none. (A hashed
// key, such as keyfunc.Header gives, could not be looked up: an
// identifier the service has authenticated is what a contract is kept
// under.)
func tenantKey(r *http.Request) (string, error) {
	t, ok := apiKeys[r.Header.Get("X-API-Key")]
	if !ok {
		return "", fmt.Errorf("no valid API key: %w", keyfunc.ErrNoKey)
	}
	return "tenant:" + t, nil
}

// newHandler limits each tenant by its contract or the default.
func newHandler(b *billing, clk core.Clock) (*core.Overrides, http.Handler, error) {
	def, err := hourly("default", 5)
	if err != nil {
		return nil, nil, err
	}
	o, err := core.NewOverrides(def, b.contract, core.OverrideOptions{
		TTL:      time.Minute,
		ErrorTTL: 5 * time.Second,
		OnError:  func(_ context.Context, err error) { fmt.Fprintln(os.Stderr, "override:", err) },
	}, core.WithClock(clk))
	if err != nil {
		return nil, nil, err
	}
	m, err := middleware.New(o, middleware.Options{Key: tenantKey})
	if err != nil {
		return nil, nil, err
	}
	return o, m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})), nil
}

// demo sends requests as tenants until they are limited, while contracts
// and limits change.
func demo(out io.Writer, h http.Handler, o *core.Overrides, b *billing, clk *stepClock) {
	burst := func(tenant string) {
		for n := 0; n < 100; n++ {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("X-API-Key", "key-of-"+tenant)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				fmt.Fprintf(out, "%s: %d served, then %d (%s)\n", tenant, n, w.Code, w.Header().Get("RateLimit-Policy"))
				return
			}
		}
		fmt.Fprintf(out, "%s: 100 served\n", tenant)
	}
	burst("acme")
	burst("globex")
	fmt.Fprintln(out, "acme's contract raised to 30 an hour")
	b.set("acme", 30, false)
	clk.advance(time.Minute) // the cached contract expires
	burst("acme")
	fmt.Fprintln(out, "billing down")
	b.set("acme", 30, true)
	burst("initech")
	clk.advance(time.Minute)
	burst("acme")
	fmt.Fprintln(out, "default raised to 8 an hour")
	b.set("acme", 30, false)
	def, _ := hourly("default", 8)
	if err := o.Default().SetPolicy(def); err != nil {
		fmt.Fprintln(out, err)
	}
	burst("globex")
}
