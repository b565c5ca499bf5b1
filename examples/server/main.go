// Command server is a configurable rate-limited HTTP server: a demo of the
// middleware's options and a target for load tests. It answers "200 ok" on
// every path, unless the limiter says otherwise.
//
//	go run ./examples/server -algorithm sliding-window -limit 100 -window 1m
//
// Flags:
//
//	-addr ADDR            listen address (default 127.0.0.1:8080)
//	-algorithm NAME       gcra (default), token-bucket, leaky-bucket (meter
//	                      form: no shaping delay), fixed-window, sliding-log,
//	                      sliding-window, hybrid, rolling-window (periods of
//	                      a tenth of the window), warm-up (warming up over
//	                      one window)
//	-limit N              requests per window (default 60)
//	-window D             window, e.g. 1m (default 1m)
//	-burst N              most at once, for gcra, token-bucket and
//	                      leaky-bucket only (default: the limit)
//	-key ip|header:NAME   the client IP (default), or a header such as an
//	                      API key (hashed)
//	-trusted-proxy CIDR   a proxy whose X-Forwarded-For is believed, with
//	                      -key ip (repeatable)
//	-ipv6-prefix BITS     IPv6 clients are keyed by this prefix (default 64)
//	-store memory|redis://host:port
//	                      where limiter state lives (default memory)
//	-fail open|closed|local
//	                      what a store error does: serve, or answer 503
//	                      (default closed). local falls back to in-process
//	                      limits when Redis fails; with the memory store,
//	                      which cannot fail, it is the same as closed.
//	-headers LIST         comma list of xratelimit, ietf, retry-after
//	                      (default all three)
//
// It writes "listening on ADDR" to stdout once it accepts connections and
// shuts down gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
)

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, errHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// newHandler builds the limited "200 ok" handler cfg describes.
func newHandler(cfg *config) (http.Handler, error) {
	if cfg.store != "memory" {
		return nil, errors.New("redis store not available in this build")
	}
	l, err := core.NewLimiter(cfg.policy)
	if err != nil {
		return nil, err
	}
	m, err := middleware.New(l, cfg.opts)
	if err != nil {
		return nil, err
	}
	return m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})), nil
}

// run serves cfg until ctx is done, then shuts down gracefully.
func run(ctx context.Context, cfg *config, stdout io.Writer) error {
	h, err := newHandler(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintln(stdout, "listening on", ln.Addr())
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
