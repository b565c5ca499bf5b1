// Command config limits an API with the rules of a configuration file,
// floodgate.yaml (see config/SCHEMA.md): API-key clients and anonymous
// clients at different rates, a login route, per-tenant plans on the
// tenants' data, an unlimited health check.
//
//	go run ./examples/config                      # a demo on floodgate.yaml
//	go run ./examples/config -config my.yaml      # check another file
//	go run ./examples/config -addr 127.0.0.1:8080 # serve
//
// A mistake in the file stops it with the file, line and column.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core"
)

//go:embed floodgate.yaml
var example []byte

// accounts stands for the service's API-key store: key → account.
var accounts = map[string]string{"key-acme": "acme", "key-globex": "globex"}

// plans stands for the accounts' plans.
var plans = map[string]string{"acme": "pro", "globex": "free"}

// account returns the account a request's API key belongs to: it looks the
// key up, so a forged key gets no account.
func account(r *http.Request) (string, bool) {
	a, ok := accounts[r.Header.Get("X-API-Key")]
	return a, ok
}

// plan returns the plan of the request's account.
func plan(r *http.Request) (string, error) {
	a, ok := account(r)
	if !ok {
		return "", errors.New("no account")
	}
	return plans[a], nil
}

// load reads the file at path, the embedded floodgate.yaml for "", with
// the functions it names; clk is the limiters' clock (nil: the system's).
func load(path string, clk core.Clock) (*config.Limiter, error) {
	opts := config.Options{
		Identities: map[string]func(*http.Request) (string, bool){"api-key": account, "tenant": account},
		Tiers:      map[string]func(*http.Request) (string, error){"plan": plan},
		Clock:      clk,
	}
	if path == "" {
		return config.Parse("floodgate.yaml", example, opts)
	}
	return config.Load(path, opts)
}

func main() {
	path := flag.String("config", "", "configuration file (default: the embedded floodgate.yaml)")
	addr := flag.String("addr", "", "serve on this address instead of running the demo")
	flag.Parse()
	lim, err := load(*path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer lim.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := lim.Check(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "warning:", err)
	}
	h := lim.Handler(api())
	if *addr == "" {
		demo(os.Stdout, h)
		return
	}
	fmt.Println("listening on", *addr)
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// api is the service: every route answers "ok".
func api() http.Handler {
	mux := http.NewServeMux()
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") }
	for _, p := range []string{"/", "POST /login", "GET /tenants/{id}/reports", "GET /tenants/{id}/exports", "GET /healthz"} {
		mux.HandleFunc(p, ok)
	}
	return mux
}

// demo sends bursts of requests and prints how many were served before
// the first refusal.
func demo(out io.Writer, h http.Handler) {
	burst := func(title, method, path, apiKey, remote string, n int) {
		served := 0
		for ; served < n; served++ {
			r := httptest.NewRequest(method, path, nil)
			r.RemoteAddr = remote
			if apiKey != "" {
				r.Header.Set("X-API-Key", apiKey)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				fmt.Fprintf(out, "%-34s %4d served, then %d", title, served, w.Code)
				if p := w.Header().Get("RateLimit-Policy"); p != "" {
					fmt.Fprintf(out, " %s", p)
				}
				fmt.Fprintln(out)
				return
			}
		}
		fmt.Fprintf(out, "%-34s %4d served\n", title, served)
	}
	burst("anonymous GET /", "GET", "/", "", "198.51.100.1:1000", 1000)
	burst("forged API keys, same address", "GET", "/", "key-forged", "198.51.100.1:1000", 1000)
	burst("partner acme, burst", "GET", "/", "key-acme", "198.51.100.1:1000", 1000)
	burst("login from one address", "POST", "/login", "", "198.51.100.2:1000", 1000)
	burst("globex (free) reports", "GET", "/tenants/globex/reports", "key-globex", "198.51.100.3:1000", 1000)
	burst("acme (pro) exports", "GET", "/tenants/acme/exports", "key-acme", "198.51.100.3:1000", 1000)
	burst("tenant data without a key", "GET", "/tenants/acme/exports", "", "198.51.100.3:1000", 1000)
	burst("health checks", "GET", "/healthz", "", "198.51.100.4:1000", 1000)
}
