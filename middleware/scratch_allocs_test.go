package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

func TestScratchStackedAllocs(t *testing.T) {
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	mw := func(name string, a core.Algorithm, ip bool) *middleware.Middleware {
		l, err := core.NewLimiter(core.MustPolicy(name, core.Limit{Name: name, Algorithm: a}), core.WithClock(clk))
		require.NoError(t, err)
		o := middleware.Options{}
		if !ip {
			o.Key = func(*http.Request) (string, error) { return "client", nil }
		}
		m, err := middleware.New(l, o)
		require.NoError(t, err)
		return m
	}
	for _, c := range []struct {
		name  string
		burst int64
	}{{"roomy", 1 << 40}, {"exhausting", 1}, {"exhaust-each", -1}} {
		rate, burst := core.Per(1<<40, time.Second), c.burst
		if burst < 0 {
			rate, burst = core.Per(1, time.Second), 1
		}
		outer := mw("global", core.GCRA{Rate: rate, Burst: burst}, true)
		inner := mw("route", core.GCRA{Rate: core.Per(1<<40, time.Second), Burst: 1 << 40}, false)
		h := outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		rec := httptest.NewRecorder()
		n := testing.AllocsPerRun(200, func() {
			for k := range rec.Header() {
				delete(rec.Header(), k)
			}
			h.ServeHTTP(rec, req)
			clk.Advance(time.Second)
		})
		t.Logf("%s: %.1f allocs", c.name, n)
	}
}
