package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/redis/go-redis/v9"
)

// config is what the flags describe.
type config struct {
	addr   string
	policy *core.Policy
	store  string // "memory" or a redis:// URL
	fail   redisstore.FailureMode
	share  float64 // with -fail local: this process's part of each limit, 1/-fleet-size
	strict bool    // -require-redis: a failed start-up check is an error
	// redisTimeout is the store's per-decision bound, 0 for its default;
	// no flag sets it (the tests do, so that a slow machine cannot fail them).
	redisTimeout time.Duration
	opts         middleware.Options
}

// errHelp is returned for -h: usage was printed, nothing is wrong.
var errHelp = flag.ErrHelp

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

// parseConfig turns the command-line arguments into a config; its errors
// are one line each. Usage goes to usage on -h only.
func parseConfig(args []string, usage io.Writer) (*config, error) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var proxies list
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	alg := fs.String("algorithm", "gcra", "gcra, token-bucket, leaky-bucket, fixed-window, sliding-log, sliding-window, hybrid, rolling-window, warm-up or backoff")
	limit := fs.Int64("limit", 60, "requests per window")
	window := fs.Duration("window", time.Minute, "window")
	burst := fs.Int64("burst", 0, "most requests at once (gcra, token-bucket, leaky-bucket); default the limit")
	key := fs.String("key", "ip", "ip or header:NAME (a header value is not checked: each one made up is a new budget)")
	fs.Var(&proxies, "trusted-proxy", "trusted proxy CIDR, with -key ip (repeatable)")
	v6 := fs.Int("ipv6-prefix", 64, "IPv6 prefix length clients are keyed by")
	store := fs.String("store", "memory", "memory or redis://host:port")
	fail := fs.String("fail", "closed", "open, closed or local (local is closed with the memory store)")
	fleet := fs.Int("fleet-size", 0, "with -fail local and Redis: how many server processes share the limit (each grants 1/N of it while Redis is down)")
	strict := fs.Bool("require-redis", false, "with Redis: refuse to start when Redis does not answer at start, or answers slower than the store's timeout")
	hdrs := fs.String("headers", "xratelimit,ietf,retry-after", "comma list of xratelimit, ietf, retry-after")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(usage)
			fs.PrintDefaults()
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	cfg := &config{addr: *addr, store: *store, share: 1, strict: *strict}
	if *limit < 1 {
		return nil, fmt.Errorf("-limit %d: want at least 1", *limit)
	}
	if *window <= 0 {
		return nil, fmt.Errorf("-window %v: want a positive duration", *window)
	}
	if !set["burst"] {
		*burst = *limit
	} else if *burst < 1 {
		return nil, fmt.Errorf("-burst %d: want at least 1", *burst)
	}
	a, err := algorithm(*alg, *limit, *window, *burst, set["burst"])
	if err != nil {
		return nil, err
	}
	if cfg.policy, err = core.Single("api", a); err != nil {
		return nil, fmt.Errorf("-algorithm %s: %w", *alg, err)
	}
	if cfg.opts.Key, err = keyFunc(*key, proxies, *v6, set); err != nil {
		return nil, err
	}
	if err := checkStore(*store); err != nil {
		return nil, err
	}
	if *store != "memory" {
		if err := redisstore.Supports(cfg.policy); err != nil {
			return nil, fmt.Errorf("-store redis: %w", err)
		}
	}
	switch *fail {
	case "open":
		cfg.opts.FailOpen, cfg.fail = true, redisstore.FailOpen
	case "closed":
		cfg.fail = redisstore.FailClosed
	case "local":
		cfg.fail = redisstore.FailLocal
	default:
		return nil, fmt.Errorf("-fail %q: want open, closed or local", *fail)
	}
	switch {
	case set["fleet-size"] && (cfg.fail != redisstore.FailLocal || *store == "memory"):
		return nil, errors.New("-fleet-size applies to -fail local with a Redis store")
	case cfg.fail == redisstore.FailLocal && *store != "memory" && !set["fleet-size"]:
		// Each process would grant the whole limit while Redis is down:
		// N processes, N times the limit.
		return nil, errors.New("-fail local needs -fleet-size N, the number of server processes sharing the limit (each grants 1/N of it while Redis is down)")
	case set["fleet-size"] && *fleet < 1:
		return nil, fmt.Errorf("-fleet-size %d: want at least 1", *fleet)
	case set["fleet-size"]:
		cfg.share = 1 / float64(*fleet)
	}
	if *strict && *store == "memory" {
		return nil, errors.New("-require-redis needs -store redis://host:port")
	}
	if cfg.opts.Headers, err = headerWriter(*hdrs); err != nil {
		return nil, err
	}
	return cfg, nil
}

// algorithm returns the named algorithm at limit per window.
func algorithm(name string, limit int64, window time.Duration, burst int64, burstSet bool) (core.Algorithm, error) {
	rate := core.Per(limit, window)
	var a core.Algorithm
	switch name {
	case "gcra":
		return core.GCRA{Rate: rate, Burst: burst}, nil
	case "token-bucket":
		return core.TokenBucket{Rate: rate, Burst: burst}, nil
	case "leaky-bucket":
		return core.LeakyBucket{Rate: rate, Capacity: burst, NoDelay: burst}, nil
	case "fixed-window":
		a = core.FixedWindow{Quota: limit, Window: window}
	case "sliding-log":
		a = core.SlidingLog{Quota: limit, Window: window}
	case "sliding-window":
		a = core.SlidingWindow{Quota: limit, Window: window}
	case "hybrid":
		a = core.Hybrid{Quota: limit, Window: window}
	case "rolling-window":
		period := window
		if window%10 == 0 {
			period = window / 10
		}
		a = core.RollingWindow{Quota: limit, Window: window, Period: period}
	case "warm-up":
		a = core.WarmUp{Rate: rate, WarmUp: window}
	case "backoff":
		a = core.Backoff{Free: limit, Window: window}
	default:
		return nil, fmt.Errorf("-algorithm %q: want gcra, token-bucket, leaky-bucket, fixed-window, sliding-log, sliding-window, hybrid, rolling-window, warm-up or backoff", name)
	}
	if burstSet {
		return nil, fmt.Errorf("-burst applies to gcra, token-bucket and leaky-bucket only, not %s", name)
	}
	return a, nil
}

// keyFunc returns the key of -key, -trusted-proxy and -ipv6-prefix.
func keyFunc(key string, proxies []string, v6 int, set map[string]bool) (keyfunc.Func, error) {
	if key == "ip" {
		k, err := keyfunc.ClientIP(keyfunc.IPOptions{TrustedProxyCIDRs: proxies, IPv6Prefix: v6})
		if err != nil {
			return nil, fmt.Errorf("-trusted-proxy or -ipv6-prefix: %w", err)
		}
		return k, nil
	}
	name, ok := strings.CutPrefix(key, "header:")
	if !ok || name == "" {
		return nil, fmt.Errorf("-key %q: want ip or header:NAME", key)
	}
	if set["trusted-proxy"] || set["ipv6-prefix"] {
		return nil, errors.New("-trusted-proxy and -ipv6-prefix need -key ip")
	}
	return headerKey(name)
}

// headerKey is keyfunc.Header, with its panic on an invalid name as an
// error.
func headerKey(name string) (k keyfunc.Func, err error) {
	defer func() {
		if recover() != nil {
			err = fmt.Errorf("-key header:%s: invalid header name", name)
		}
	}()
	return keyfunc.Header(name), nil
}

// checkStore accepts memory and redis://host:port, whose dial, read and
// write timeouts, when its query sets them, are 1ms or more: every round
// trip would fail otherwise, and with -fail open every request would be
// admitted.
func checkStore(s string) error {
	if s == "memory" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "redis" || u.Hostname() == "" || u.Port() == "" || (u.Path != "" && u.Path != "/") {
		return fmt.Errorf("-store %s: want memory or redis://host:port", redacted(s))
	}
	o, err := redis.ParseURL(s)
	if err != nil {
		return fmt.Errorf("-store %s: %w", redacted(s), err)
	}
	for _, d := range []time.Duration{o.DialTimeout, o.ReadTimeout, o.WriteTimeout} {
		if d > 0 && d < time.Millisecond {
			return fmt.Errorf("-store %s: dial_timeout, read_timeout and write_timeout must be 1ms or more (or -1)", redacted(s))
		}
	}
	return nil
}

// redacted is a -store URL as errors and logs show it: without its
// password.
func redacted(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(an unparsable URL, not quoted)"
	}
	return u.Redacted()
}

// headerWriter writes the fields of the -headers list.
func headerWriter(s string) (*headers.Writer, error) {
	omit := headers.RetryAfter | headers.XRateLimit | headers.IETF
	for f := range strings.SplitSeq(s, ",") {
		switch strings.TrimSpace(f) {
		case "xratelimit":
			omit &^= headers.XRateLimit
		case "ietf":
			omit &^= headers.IETF
		case "retry-after":
			omit &^= headers.RetryAfter
		default:
			return nil, fmt.Errorf("-headers %q: want a comma list of xratelimit, ietf, retry-after", s)
		}
	}
	return headers.New(headers.Options{Omit: omit})
}
