package benchmarks

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/didip/tollbooth/v7"
	tbl "github.com/didip/tollbooth/v7/limiter"
	"github.com/go-chi/httprate"
	echomw "github.com/labstack/echo/v4/middleware"
	"github.com/sethvargo/go-limiter/memorystore"
	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"
	ulule "github.com/ulule/limiter/v3"
	ululemem "github.com/ulule/limiter/v3/drivers/store/memory"
	"golang.org/x/time/rate"

	"github.com/floodgate-go/floodgate/core"
)

// spec is one configuration, expressed for every library: n events per
// period (the sustained rate) and a burst. Window-counting libraries (ulule,
// httprate) and sethvargo, which cannot set a burst apart from the rate, get
// `burst` events per window of burst/rate: the same long-run rate and the
// same largest burst.
type spec struct {
	n      int64
	period time.Duration
	burst  int64
}

func (s spec) perSecond() float64 { return float64(s.n) / s.period.Seconds() }

// window is the time the rate takes to earn a full burst.
func (s spec) window() time.Duration {
	return time.Duration(float64(s.period) * float64(s.burst) / float64(s.n))
}

var (
	// specAllow never denies within a run (floodgate's own core benchmark
	// uses the same GCRA: 1/s, burst 1e9).
	specAllow = spec{n: 1, period: time.Second, burst: 1e9}
	// specMany keeps every key in every table for 10 minutes (no key recovers,
	// expires or is swept during a run) and never denies.
	specMany = spec{n: 1, period: 10 * time.Minute, burst: 1e6}
	// specDeny admits one event and then denies for a day.
	specDeny = spec{n: 1, period: 24 * time.Hour, burst: 1}
	// specAccuracy is the accuracy scenario: 100/s, burst 100.
	specAccuracy = spec{n: 100, period: time.Second, burst: 100}
)

// allower is the thinnest wrapper around one library's decision for a key.
type allower interface {
	Allow(key string) bool
}

// errCounter is implemented by wrappers whose library can fail a decision
// (counted on the error path only, so the happy path pays nothing).
type errCounter interface{ Errors() int64 }

type errs struct{ n atomic.Int64 }

func (e *errs) Errors() int64 { return e.n.Load() }

// closer is implemented by wrappers that own a background goroutine.
type closer interface{ Close() }

// simClock is a settable clock for the libraries that accept one.
type simClock struct{ ns atomic.Int64 }

func (c *simClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *simClock) Set(t time.Duration)     { c.ns.Store(int64(t) + simEpoch) }
func (c *simClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

const simEpoch = int64(1_700_000_000) * int64(time.Second)

// library builds an allower for a spec. clk is nil for real time; a library
// that cannot take a clock returns ok=false when clk is non-nil.
type library struct {
	name string
	new  func(s spec, clk *simClock) (a allower, ok bool)
}

// memoryLibraries are the in-process limiters, floodgate first.
var memoryLibraries = []library{
	{"floodgate", func(s spec, clk *simClock) (allower, bool) {
		return newFloodgate(gcraOf(s), clk), true
	}},
	{"floodgate-tb", func(s spec, clk *simClock) (allower, bool) {
		return newFloodgate(core.TokenBucket{Rate: core.Per(s.n, s.period), Burst: s.burst}, clk), true
	}},
	{"x-time-rate", newXRate},
	{"sethvargo", func(s spec, clk *simClock) (allower, bool) {
		if clk != nil {
			return nil, false
		}
		st, err := memorystore.New(&memorystore.Config{
			Tokens:        uint64(s.burst),
			Interval:      s.window(),
			SweepInterval: 24 * time.Hour, // no sweep during a run
			SweepMinTTL:   24 * time.Hour,
		})
		must(err)
		return &sethvargoAllower{st: st}, true
	}},
	{"ulule", func(s spec, clk *simClock) (allower, bool) {
		if clk != nil {
			return nil, false
		}
		st := ululemem.NewStoreWithOptions(ulule.StoreOptions{Prefix: "b", CleanUpInterval: time.Hour})
		return &ululeAllower{l: ulule.New(st, ulule.Rate{Period: s.window(), Limit: s.burst})}, true
	}},
	{"httprate", func(s spec, clk *simClock) (allower, bool) {
		if clk != nil {
			return nil, false
		}
		return newHTTPRate(s), true
	}},
	{"tollbooth", func(s spec, clk *simClock) (allower, bool) {
		if clk != nil {
			return nil, false
		}
		l := tollbooth.NewLimiter(s.perSecond(), &tbl.ExpirableOptions{DefaultExpirationTTL: 24 * time.Hour})
		l.SetBurst(int(s.burst))
		return tollboothAllower{l}, true
	}},
	{"throttled", func(s spec, clk *simClock) (allower, bool) {
		st, err := memstore.New(4 * manyKeys) // LRU bound above the 1M keys
		must(err)
		if clk != nil {
			st.SetTimeNow(clk.Now)
		}
		return newThrottled(throttled.WrapStoreWithContext(st), s), true
	}},
	{"echo", func(s spec, clk *simClock) (allower, bool) {
		if clk != nil {
			return nil, false
		}
		st := echomw.NewRateLimiterMemoryStoreWithConfig(echomw.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(s.perSecond()), Burst: int(s.burst), ExpiresIn: 24 * time.Hour,
		})
		return &echoAllower{st: st}, true
	}},
}

// hotKeyLibraries are run by HotKey only, after memoryLibraries: variants of
// floodgate's call (left out of "best peer", as every floodgate-* row is).
var hotKeyLibraries = []library{
	{"floodgate-allow", func(s spec, clk *simClock) (allower, bool) {
		return floodgateByValue{newFloodgate(gcraOf(s), clk)}, true
	}},
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func gcraOf(s spec) core.GCRA { return core.GCRA{Rate: core.Per(s.n, s.period), Burst: s.burst} }

// floodgate: core.Limiter over a MemoryStore sized for 1M keys (twice
// over, as in core/bench_test.go).

type floodgateAllower struct{ l *core.Limiter }

func newFloodgate(a core.Algorithm, clk *simClock) *floodgateAllower {
	p, err := core.Single("bench", a)
	must(err)
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 2 * manyKeys})
	must(err)
	opts := []core.Option{core.WithStore(ms)}
	if clk != nil {
		opts = append(opts, core.WithClock(clk))
	}
	l, err := core.NewLimiter(p, opts...)
	must(err)
	return &floodgateAllower{l}
}

// Allow decides through Limiter.Take into a Result of its own, on the
// stack, as the middleware does (a Result per request, never reused).
func (f *floodgateAllower) Allow(key string) bool {
	var res core.Result
	_ = f.l.Take(context.Background(), key, 1, &res)
	return res.Allowed
}

// floodgateByValue decides through Limiter.Allow, which returns its Result
// by value: the copy of the Result out of the call is the difference from
// floodgate's row (HotKey only).
type floodgateByValue struct{ *floodgateAllower }

func (f floodgateByValue) Allow(key string) bool {
	res, _ := f.l.Allow(context.Background(), key)
	return res.Allowed
}

// x/time/rate: one *rate.Limiter per key in a sync.Map, the usual way.

type xRateAllower struct {
	m     sync.Map
	limit rate.Limit
	burst int
	clk   *simClock
}

func newXRate(s spec, clk *simClock) (allower, bool) {
	return &xRateAllower{limit: rate.Limit(s.perSecond()), burst: int(s.burst), clk: clk}, true
}

func (x *xRateAllower) Allow(key string) bool {
	v, ok := x.m.Load(key)
	if !ok {
		v, _ = x.m.LoadOrStore(key, rate.NewLimiter(x.limit, x.burst))
	}
	l := v.(*rate.Limiter)
	if x.clk != nil {
		return l.AllowN(x.clk.Now(), 1)
	}
	return l.Allow()
}

// sethvargo/go-limiter memorystore.

type sethvargoAllower struct {
	errs
	st interface {
		Take(ctx context.Context, key string) (uint64, uint64, uint64, bool, error)
		Close(ctx context.Context) error
	}
}

func (s *sethvargoAllower) Allow(key string) bool {
	_, _, _, ok, err := s.st.Take(context.Background(), key)
	if err != nil {
		s.n.Add(1)
	}
	return ok
}

func (s *sethvargoAllower) Close() { _ = s.st.Close(context.Background()) }

// ulule/limiter: Limiter.Get (increments) on a store.

type ululeAllower struct {
	errs
	l *ulule.Limiter
}

func (u *ululeAllower) Allow(key string) bool {
	c, err := u.l.Get(context.Background(), key)
	if err != nil {
		u.n.Add(1)
		return false
	}
	return !c.Reached
}

// go-chi/httprate: its only public decision API is RateLimiter.OnLimit,
// which also sets the X-RateLimit-* headers on a ResponseWriter.

type httprateAllower struct {
	l    *httprate.RateLimiter
	req  *http.Request
	pool sync.Pool
}

func newHTTPRate(s spec) *httprateAllower {
	req, err := http.NewRequest(http.MethodGet, "/", nil)
	must(err)
	h := &httprateAllower{l: httprate.NewRateLimiter(int(s.burst), s.window()), req: req}
	h.pool.New = func() any { return newDiscardWriter() }
	return h
}

func (h *httprateAllower) Allow(key string) bool {
	w := h.pool.Get().(*discardWriter)
	limited := h.l.OnLimit(w, h.req, key)
	h.pool.Put(w)
	return !limited
}

// didip/tollbooth: Limiter.LimitReached (a *rate.Limiter per key in an
// expirable cache).

type tollboothAllower struct{ l *tbl.Limiter }

func (t tollboothAllower) Allow(key string) bool { return !t.l.LimitReached(key) }

// throttled: GCRARateLimiterCtx over a store.

type throttledAllower struct {
	errs
	rl *throttled.GCRARateLimiterCtx
}

func newThrottled(st throttled.GCRAStoreCtx, s spec) *throttledAllower {
	rl, err := throttled.NewGCRARateLimiterCtx(st, throttled.RateQuota{
		MaxRate:  throttled.PerDuration(int(s.n), s.period),
		MaxBurst: int(s.burst) - 1, // throttled's burst is in addition to the first
	})
	must(err)
	return &throttledAllower{rl: rl}
}

func (t *throttledAllower) Allow(key string) bool {
	limited, _, err := t.rl.RateLimitCtx(context.Background(), key, 1)
	if err != nil {
		t.n.Add(1)
		return false
	}
	return !limited
}

// echo: middleware.RateLimiterMemoryStore.Allow.

type echoAllower struct {
	errs
	st *echomw.RateLimiterMemoryStore
}

func (e *echoAllower) Allow(key string) bool {
	ok, err := e.st.Allow(key)
	if err != nil {
		e.n.Add(1)
	}
	return ok
}
