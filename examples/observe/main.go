// Command observe serves a rate-limited API with its Prometheus metrics,
// and can drive traffic at itself, for the Grafana dashboard in
// grafana/floodgate.json:
//
//	go run . -load            # serve on 127.0.0.1:8080 and load it
//	curl -s 127.0.0.1:8080/metrics | grep floodgate_
//
// The routes: GET /api/items (policy "api"), GET /api/search (policy
// "search", two limits), POST /login (policy "login", counting failed
// attempts only; the password is "correct horse battery staple"), and
// GET /metrics. Every limit is per client address.
//
// The load generator (-load) sends, from many client addresses, a mix of
// polite traffic that stays within its limits, a few greedy clients and a
// few password guessers that do not. It tells the server each request's
// client address in X-Forwarded-For, which the server believes from the
// networks of -trusted-proxies only: by default the loopback, so that the
// demo speaks for many clients from one machine. A real service names its
// load balancers there, never the networks its clients come from.
//
// With -redis ADDR -fleet-size N the limits are kept in Redis (falling
// back to local limits while it is unreachable, 1/N of each per process:
// N is how many processes share the Redis) and the store's latency and
// state appear in the metrics. The server prints "listening on ADDR" once it
// accepts connections and stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	maxKeys := flag.Int("max-keys", 10_000, "keys the in-memory store keeps per policy")
	proxies := flag.String("trusted-proxies", "127.0.0.0/8,::1", "comma-separated networks whose X-Forwarded-For is believed")
	redisAddr := flag.String("redis", "", "keep the limits in the Redis at this address instead of memory")
	fleet := flag.Int("fleet-size", 0, "with -redis: how many server processes share the limits (each grants 1/N of a limit while Redis is down)")
	load := flag.Bool("load", false, "drive traffic at the server")
	requests := flag.Int("requests", 0, "with -load, stop after this many requests (0: never)")
	clients := flag.Int("clients", 2_000, "with -load, polite client addresses")
	workers := flag.Int("workers", 8, "with -load, requests in flight")
	rps := flag.Int("rps", 200, "with -load, requests per second (0: as fast as possible)")
	flag.Parse()

	cfg := config{
		Addr:   *addr,
		Server: serverConfig{MaxKeys: *maxKeys, TrustedProxies: splitList(*proxies), Redis: *redisAddr, FleetSize: *fleet},
	}
	if *load {
		cfg.Load = &loadConfig{Requests: *requests, Clients: *clients, Workers: *workers, RPS: *rps}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// config is the command's configuration.
type config struct {
	Addr   string
	Server serverConfig
	// Load, when set, is the load to drive at the server (its Target is
	// filled in).
	Load *loadConfig
}

// run serves until ctx is done, printing "listening on ADDR" to out once
// the listener accepts connections, and, with a load of a bounded number
// of requests, "load done: …" when it is answered.
func run(ctx context.Context, cfg config, out io.Writer) error {
	if cfg.Load != nil {
		// Checked before listening; the target is known after.
		l := *cfg.Load
		l.Target = "http://unused"
		if err := l.validate(); err != nil {
			return err
		}
	}
	d, err := newDemo(cfg.Server)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: d.handler, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(out, "listening on %s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	loadCtx, stopLoad := context.WithCancel(ctx)
	loadDone := make(chan struct{})
	if cfg.Load != nil {
		l := *cfg.Load
		l.Target = "http://" + ln.Addr().String()
		go func() {
			defer close(loadDone)
			client := &http.Client{Timeout: 10 * time.Second}
			t, err := generate(loadCtx, client, l)
			// Connections dialed and never used are new to the server,
			// which would wait for them at shutdown.
			client.CloseIdleConnections()
			if loadCtx.Err() != nil {
				return // stopped, not finished
			}
			if err != nil {
				fmt.Fprintf(out, "load done with errors (first: %v): %s\n", err, t)
				return
			}
			fmt.Fprintf(out, "load done: %s\n", t)
		}()
	} else {
		close(loadDone)
	}

	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	stopLoad()
	<-loadDone
	if err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
