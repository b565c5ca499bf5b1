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
//	                      one window), backoff (each request counts as a
//	                      failure: -limit free per window, then doubling
//	                      lockouts)
//	-limit N              requests per window (default 60)
//	-window D             window, e.g. 1m (default 1m)
//	-burst N              most at once, for gcra, token-bucket and
//	                      leaky-bucket only (default: the limit)
//	-key ip|header:NAME   the client IP (default), or a header such as an
//	                      API key (hashed). The server checks no header
//	                      value: each one a client makes up is a new key
//	                      with a budget of its own, so header:NAME limits
//	                      only clients that send one value (a load test),
//	                      never a public API's callers
//	-trusted-proxy CIDR   a proxy whose X-Forwarded-For is believed, with
//	                      -key ip (repeatable)
//	-ipv6-prefix BITS     IPv6 clients are keyed by this prefix (default 64)
//	-store memory|redis://host:port
//	                      where limiter state lives (default memory); with
//	                      Redis, every server sharing it enforces one limit
//	                      (decided on Redis TIME)
//	-fail open|closed|local
//	                      what happens while Redis is unreachable: admit,
//	                      or answer 503 (default closed); local decides on
//	                      in-process limits until Redis is back. With the
//	                      memory store, which cannot fail, local is the
//	                      same as closed.
//	-fleet-size N         with -fail local: the number of server processes
//	                      sharing the Redis limit; while Redis is down each
//	                      grants 1/N of each limit (required with -fail
//	                      local and Redis)
//	-require-redis        with Redis: refuse to start when Redis does not
//	                      answer at start or its round trip is not below
//	                      the store's timeout (otherwise a warning, and the
//	                      -fail mode until Redis answers)
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
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/redis/go-redis/v9"
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

// newHandler builds the limited "200 ok" handler cfg describes, and the
// function releasing its store (the Redis client and the store's
// goroutines; nothing for the memory store).
func newHandler(cfg *config) (http.Handler, func(), error) {
	if cfg.store == "memory" {
		l, err := core.NewLimiter(cfg.policy)
		if err != nil {
			return nil, nil, err
		}
		h, err := handler(l, cfg)
		return h, func() {}, err
	}
	ro, err := redis.ParseURL(cfg.store)
	if err != nil {
		return nil, nil, fmt.Errorf("-store %s: %w", redacted(cfg.store), err)
	}
	// The store bounds every decision itself; a client bounding its reads
	// too frees a connection stuck on a frozen Redis sooner. No retries: a
	// command sent again after a lost reply may run twice (a take counts
	// twice). One dial per attempt: the store's breaker paces the
	// attempts (go-redis's default, 5 dials 100 ms apart, made the
	// start-up check against a Redis that is down wait 0.4 s to say so).
	ro.ContextTimeoutEnabled = true
	ro.MaxRetries, ro.DialerRetries = -1, 1
	client := redis.NewClient(ro)
	s, err := redisstore.New(client, redisstore.Options{FailureMode: cfg.fail, LocalShare: cfg.share, Timeout: cfg.redisTimeout})
	if err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	closeStore := func() { _ = s.Close(); _ = client.Close() }
	h, err := redisHandler(cfg, s)
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	return h, closeStore, nil
}

// redisHandler is newHandler's on the Redis store s, checked at start:
// the limiter is created first, so that Check runs its script too.
func redisHandler(cfg *config, s *redisstore.Store) (http.Handler, error) {
	l, err := core.NewLimiter(cfg.policy, core.WithStore(s))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Check(ctx); err != nil {
		if cfg.strict {
			return nil, fmt.Errorf("-store %s: %w", redacted(cfg.store), err)
		}
		slog.Warn("redis start-up check failed; deciding by -fail until redis answers", "mode", cfg.fail.String(), "err", err)
	}
	return handler(l, cfg)
}

// handler is the "200 ok" handler limited by l. It is served by a
// ServeMux pattern of every method, which the middleware reads: a CORS
// preflight runs it as any request does, so it counts in the client's
// bucket, not in one of its own (see middleware.Preflight).
func handler(l *core.Limiter, cfg *config) (http.Handler, error) {
	m, err := middleware.New(l, cfg.opts)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})
	return m.Handler(mux), nil
}

// run serves cfg until ctx is done, then shuts down gracefully.
func run(ctx context.Context, cfg *config, stdout io.Writer) error {
	h, closeStore, err := newHandler(cfg)
	if err != nil {
		return err
	}
	defer closeStore()
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
