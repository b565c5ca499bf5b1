package headers_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
)

// BenchmarkWrite writes every field for a two-limit policy. The header map
// already holds the fields, as it does from the second Write into a reused
// map; the first Write into a fresh http.Header also pays for the map's
// growth, which is net/http's, not Write's.
func BenchmarkWrite(b *testing.B) {
	clk := coretest.NewClock(t0)
	l := newLimiter(b, clk, burst, daily)
	allowed := take(b, l, 1)
	denied := takeN(b, l, 10)
	if !allowed.Allowed || denied.Allowed {
		b.Fatal("want an admitted and a denied result")
	}
	for _, c := range []struct {
		name string
		opts headers.Options
		r    *core.Result
		key  bool
	}{
		{"draft11/allowed", headers.Options{}, &allowed, false},
		{"draft11/denied", headers.Options{}, &denied, false},
		{"draft7/denied", headers.Options{Draft: headers.DraftIETF7}, &denied, false},
		{"draft6/denied", headers.Options{Draft: headers.DraftIETF6}, &denied, false},
		{"draft11/denied/pk", headers.Options{PartitionKeySecret: []byte("0123456789abcdef")}, &denied, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := newWriter(b, c.opts)
			h := http.Header{}
			w.WriteKey(h, c.r, "user-42")
			b.ReportAllocs()
			for b.Loop() {
				w.WriteKey(h, c.r, "user-42")
			}
		})
	}
}

// BenchmarkCombine is Combine's cost over Write's on the common path: a
// response holding other fields but none of the Writer's (the first
// middleware of a request), their fields cleared at each round as a new
// response's are.
func BenchmarkCombine(b *testing.B) {
	l := newLimiter(b, coretest.NewClock(t0), burst)
	r := take(b, l, 1)
	w := newWriter(b, headers.Options{})
	for _, c := range []struct {
		name string
		f    func(http.Header, *core.Result)
	}{{"write", w.Write}, {"combine", w.Combine}} {
		b.Run(c.name, func(b *testing.B) {
			h := http.Header{"Content-Type": {"text/plain"}, "X-Content-Type-Options": {"nosniff"}}
			c.f(h, &r)
			names := w.Names()
			b.ReportAllocs()
			for b.Loop() {
				for _, n := range names {
					delete(h, n)
				}
				c.f(h, &r)
			}
		})
	}
}
