package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
)

// serverConfig configures the demo API.
type serverConfig struct {
	// MaxKeys bounds the keys the in-memory store keeps per policy.
	MaxKeys int
	// TrustedProxies are the networks whose X-Forwarded-For is believed.
	TrustedProxies []string
	// Redis, when set, is the address of the Redis the limits are kept in
	// (with a local fallback while it is unreachable) instead of memory.
	Redis string
	// FleetSize is, with Redis, how many processes share the limits: each
	// grants 1/FleetSize of a limit while Redis is unreachable. Required
	// with Redis: a process granting the whole limit would make a fleet of
	// N admit N times the limit during an outage.
	FleetSize int
	// Clock is the limiters' clock; nil means the system clock (tests
	// pass a fake one).
	Clock core.Clock
}

// The demo's policies, per client address (and per route: see
// middleware.Routes). They are small so that a load generator on one
// machine reaches them.
func policies() (api, search, login *core.Policy, err error) {
	api, err = core.NewPolicy("api", core.Limit{Name: "second", Algorithm: core.GCRA{Rate: core.PerSecond(5), Burst: 10}})
	if err != nil {
		return nil, nil, nil, err
	}
	search, err = core.NewPolicy("search",
		core.Limit{Name: "burst", Algorithm: core.TokenBucket{Rate: core.PerSecond(1), Burst: 3}},
		core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 100, Window: time.Hour}},
	)
	if err != nil {
		return nil, nil, nil, err
	}
	// Login failures only (see CountIf below): 5 at once, then one every
	// 3 minutes.
	login, err = core.NewPolicy("login", core.Limit{Name: "failures", Algorithm: core.GCRA{Rate: core.PerHour(20), Burst: 5}})
	if err != nil {
		return nil, nil, nil, err
	}
	return api, search, login, nil
}

// demo is the API with its metrics, and what must be closed after it.
type demo struct {
	handler http.Handler
	closers []func() error
}

// Close releases the store's connections.
func (d *demo) Close() error {
	var errs []error
	for i := len(d.closers) - 1; i >= 0; i-- {
		errs = append(errs, d.closers[i]())
	}
	return errors.Join(errs...)
}

// newDemo builds the routes:
//
//	GET  /api/items   policy "api"
//	GET  /api/search  policy "search" (two limits)
//	POST /login       policy "login", failed attempts only
//	GET  /metrics     Prometheus, never limited
func newDemo(cfg serverConfig) (*demo, error) {
	d := &demo{}
	reg := prometheus.NewRegistry()
	obs, err := promobserve.New(reg, promobserve.Options{})
	if err != nil {
		return nil, err
	}
	var st core.Store
	if cfg.Redis != "" {
		if cfg.FleetSize < 1 {
			return nil, fmt.Errorf("-redis needs -fleet-size N, the number of processes sharing the limits (each grants 1/N of a limit while Redis is down); got %d", cfg.FleetSize)
		}
		c := redis.NewClient(&redis.Options{Addr: cfg.Redis})
		d.closers = append(d.closers, c.Close)
		rs, err := redisstore.New(c, redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 1 / float64(cfg.FleetSize), Observer: obs})
		if err != nil {
			return nil, errors.Join(err, d.Close())
		}
		d.closers = append(d.closers, rs.Close)
		st = rs
	} else {
		m, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: cfg.MaxKeys})
		if err != nil {
			return nil, err
		}
		obs.WatchMemory(m)
		st = m
	}
	opts := []core.Option{core.WithStore(st), core.WithObserver(obs)}
	if cfg.Clock != nil {
		opts = append(opts, core.WithClock(cfg.Clock))
	}
	h, err := routes(cfg, opts)
	if err != nil {
		return nil, errors.Join(err, d.Close())
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	d.handler = mux
	return d, nil
}

// routes returns the limited API, its limiters made with opts.
func routes(cfg serverConfig, opts []core.Option) (http.Handler, error) {
	apiPolicy, searchPolicy, loginPolicy, err := policies()
	if err != nil {
		return nil, err
	}
	api, err := core.NewLimiter(apiPolicy, opts...)
	if err != nil {
		return nil, err
	}
	search, err := core.NewLimiter(searchPolicy, opts...)
	if err != nil {
		return nil, err
	}
	login, err := core.NewLimiter(loginPolicy, opts...)
	if err != nil {
		return nil, err
	}
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{TrustedProxyCIDRs: cfg.TrustedProxies})
	if err != nil {
		return nil, err
	}
	rt := middleware.NewRoutes(api)
	if err := rt.Add("GET /api/search", search); err != nil {
		return nil, err
	}
	apiMW, err := middleware.NewSelect(rt, middleware.Options{Key: ip})
	if err != nil {
		return nil, err
	}
	loginMW, err := middleware.New(login, middleware.Options{Key: ip, CountIf: func(status int) bool { return status >= 400 }})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/items", apiMW.Handler(http.HandlerFunc(items)))
	mux.Handle("GET /api/search", apiMW.Handler(http.HandlerFunc(searchItems)))
	mux.Handle("POST /login", loginMW.Handler(http.HandlerFunc(checkLogin)))
	return mux, nil
}

var catalogue = []string{"anvil", "bellows", "chisel", "drill", "file", "gouge", "hammer"}

func items(w http.ResponseWriter, _ *http.Request) { writeJSON(w, catalogue) }

func searchItems(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	found := []string{}
	for _, it := range catalogue {
		if q != "" && len(q) <= len(it) && it[:len(q)] == q {
			found = append(found, it)
		}
	}
	writeJSON(w, found)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// The demo's one password (any username). A real service keeps a slow,
// salted hash per account.
var demoHash = sha256.Sum256([]byte(demoPassword))

const demoPassword = "correct horse battery staple"

// checkLogin answers 200 to the demo password, 401 to anything else.
func checkLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	h := sha256.Sum256([]byte(r.PostForm.Get("password")))
	if subtle.ConstantTimeCompare(h[:], demoHash[:]) != 1 {
		http.Error(w, "wrong credentials", http.StatusUnauthorized)
		return
	}
	fmt.Fprintln(w, "welcome")
}
