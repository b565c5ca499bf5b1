package benchmarks

import (
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/didip/tollbooth/v7"
	tbl "github.com/didip/tollbooth/v7/limiter"
	"github.com/go-chi/httprate"
	"github.com/labstack/echo/v4"
	echomw "github.com/labstack/echo/v4/middleware"
	"github.com/sethvargo/go-limiter/httplimit"
	"github.com/sethvargo/go-limiter/memorystore"
	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"
	ulule "github.com/ulule/limiter/v3"
	ululestd "github.com/ulule/limiter/v3/drivers/middleware/stdlib"
	ululemem "github.com/ulule/limiter/v3/drivers/store/memory"
	"golang.org/x/time/rate"

	"github.com/floodgate-go/floodgate/middleware"
)

// discardWriter is a ResponseWriter that keeps nothing but its header map,
// cleared before every request so headers added with Add do not pile up.
// The map starts empty, as a server's does for every response (net/http
// makes one per request, with no size hint): clearing it costs in
// proportion to its capacity, not to the fields written, and a map made
// with room for 16 fields charged every library that writes headers about
// 100 ns more per request than one of its natural size (a single group of
// 8 slots, which holds every library's fields here), while echo, which
// writes none, paid nothing for it.
type discardWriter struct {
	h      http.Header
	status int
}

func newDiscardWriter() *discardWriter { return &discardWriter{h: http.Header{}} }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }

func (w *discardWriter) reset() {
	clear(w.h)
	w.status = 0
}

// bare is the handler every middleware wraps: a 200 and no body.
var bare = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })

// middlewares wraps bare in each library's net/http middleware, keyed by the
// client IP from RemoteAddr only, on the allow path (specAllow). Every header
// each library can write is on; floodgate's zero Options write all of them:
// X-RateLimit-*, Retry-After (on denials) and the IETF RateLimit and
// RateLimit-Policy fields. x/time/rate has no middleware; echo's runs in an
// echo application, as echo mounts it (e.Use), and writes no header: its
// row includes echo's router and context, which the same application
// without the rate limiter costs (about 20 to 70 ns, 0 allocations, on a
// 2-core host).
var middlewares = []struct {
	name string
	wrap func(b *testing.B, s spec) http.Handler
}{
	{"bare", func(*testing.B, spec) http.Handler { return bare }},
	{"floodgate", func(b *testing.B, s spec) http.Handler {
		m, err := middleware.New(newFloodgateCore(s), middleware.Options{})
		must(err)
		return m.Handler(bare)
	}},
	{"sethvargo", func(b *testing.B, s spec) http.Handler {
		st, err := memorystore.New(&memorystore.Config{Tokens: uint64(s.burst), Interval: s.window(),
			SweepInterval: 24 * time.Hour, SweepMinTTL: 24 * time.Hour})
		must(err)
		b.Cleanup(func() { _ = st.Close(b.Context()) })
		m, err := httplimit.NewMiddleware(st, httplimit.IPKeyFunc())
		must(err)
		return m.Handle(bare)
	}},
	{"ulule", func(b *testing.B, s spec) http.Handler {
		st := ululemem.NewStoreWithOptions(ulule.StoreOptions{Prefix: "b", CleanUpInterval: time.Hour})
		l := ulule.New(st, ulule.Rate{Period: s.window(), Limit: s.burst})
		return ululestd.NewMiddleware(l).Handler(bare)
	}},
	{"httprate", func(b *testing.B, s spec) http.Handler {
		//lint:ignore SA1019 RemoteAddr, as every other library here is keyed
		return httprate.LimitBy(int(s.burst), s.window(), httprate.KeyByIP)(bare)
	}},
	{"tollbooth", func(b *testing.B, s spec) http.Handler {
		l := tollbooth.NewLimiter(s.perSecond(), &tbl.ExpirableOptions{DefaultExpirationTTL: 24 * time.Hour})
		l.SetBurst(int(s.burst))
		l.SetIPLookups([]string{"RemoteAddr"})
		return tollbooth.LimitHandler(l, bare)
	}},
	{"throttled", func(b *testing.B, s spec) http.Handler {
		st, err := memstore.New(4 * manyKeys)
		must(err)
		t := newThrottled(throttled.WrapStoreWithContext(st), s)
		h := &throttled.HTTPRateLimiterCtx{RateLimiter: t.rl, VaryBy: &throttled.VaryBy{RemoteAddr: true}}
		return h.RateLimit(bare)
	}},
	{"echo", func(b *testing.B, s spec) http.Handler {
		st := echomw.NewRateLimiterMemoryStoreWithConfig(echomw.RateLimiterMemoryStoreConfig{
			Rate: rate.Limit(s.perSecond()), Burst: int(s.burst), ExpiresIn: 24 * time.Hour,
		})
		return echoApp(echomw.RateLimiter(st))
	}},
}

// echoApp is an echo application serving bare's answer on the benchmark's
// route, with mw applied to every request by e.Use (as echo's documentation
// mounts its rate limiter) unless mw is nil.
func echoApp(mw echo.MiddlewareFunc) http.Handler {
	e := echo.New()
	if mw != nil {
		e.Use(mw)
	}
	e.GET("/api", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	return e
}

func newFloodgateCore(s spec) middleware.Limiter {
	return newFloodgate(gcraOf(s), nil).l
}

// clientRequests returns GET requests from n distinct documentation-range
// client addresses (no traffic is sent: handlers are called directly).
func clientRequests(n int) []*http.Request {
	reqs := make([]*http.Request, n)
	nets := []string{"192.0.2.", "198.51.100.", "203.0.113."}
	for i := range reqs {
		r, err := http.NewRequest(http.MethodGet, "http://bench.example/api", nil)
		must(err)
		r.RemoteAddr = nets[i%3] + strconv.Itoa(i/3%256) + ":" + strconv.Itoa(40000+i)
		reqs[i] = r
	}
	return reqs
}

const httpClients = 768

// BenchmarkMiddleware serves requests from 768 client IPs through each
// middleware from GOMAXPROCS goroutines, calling ServeHTTP directly. The
// overhead of a middleware is its ns/op minus bare's (RESULTS.md does the
// subtraction). For figures that survive a noisy host, run each library once
// per round, in rotated order (-bench 'Middleware/allow-parallel/^NAME$'),
// and compare medians.
func BenchmarkMiddleware(b *testing.B) {
	for _, mw := range middlewares {
		b.Run("allow-parallel/"+mw.name, func(b *testing.B) {
			h := mw.wrap(b, specAllow)
			// Check once that it admits and, but for bare and echo (which
			// has none), writes a rate-limit header.
			w := newDiscardWriter()
			h.ServeHTTP(w, clientRequests(1)[0])
			if w.status != http.StatusOK {
				b.Fatalf("status %d on the allow path", w.status)
			}
			if mw.name != "bare" && mw.name != "echo" && len(w.h) == 0 {
				b.Fatal("no header written")
			}
			serveParallel(b, h)
		})
	}
}

// serveParallel serves requests from httpClients client IPs through h from
// GOMAXPROCS goroutines, each with its own set of requests and writer.
func serveParallel(b *testing.B, h http.Handler) {
	sets := make([][]*http.Request, runtime.GOMAXPROCS(0))
	for j := range sets {
		sets[j] = clientRequests(httpClients)
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		reqs := sets[int(next.Add(1)-1)%len(sets)]
		w := newDiscardWriter()
		i := 0
		for pb.Next() {
			w.reset()
			h.ServeHTTP(w, reqs[i])
			if i++; i == len(reqs) {
				i = 0
			}
		}
	})
}
