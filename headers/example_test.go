package headers_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
)

// printHeader prints h sorted by field name.
func printHeader(h http.Header) {
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Printf("%s: %s\n", k, h.Get(k))
	}
}

// exampleLimiter returns a limiter of a burst and a daily limit on a clock
// that stands still at 2026-01-02 03:04:05 UTC.
func exampleLimiter() *core.Limiter {
	p := core.MustPolicy("api",
		core.Limit{Name: "burst", Algorithm: core.GCRA{Rate: core.PerMinute(100), Burst: 10}},
		core.Limit{Name: "daily", Algorithm: core.GCRA{Rate: core.PerDay(1000)}},
	)
	l, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))))
	if err != nil {
		panic(err)
	}
	return l
}

// The default Writer writes X-RateLimit-* and the draft 11 fields, and
// Retry-After on denials.
func Example() {
	w, err := headers.New(headers.Options{})
	if err != nil {
		panic(err)
	}
	l := exampleLimiter()

	r, _ := l.Allow(context.Background(), "client-1")
	h := http.Header{}
	w.Write(h, &r)
	printHeader(h)

	for range 10 {
		r, _ = l.Allow(context.Background(), "client-1")
	}
	fmt.Println("allowed:", r.Allowed)
	h = http.Header{}
	w.Write(h, &r)
	printHeader(h)
	// Output:
	// Ratelimit: "burst";r=9;t=1, "daily";r=999;t=87
	// Ratelimit-Policy: "burst";q=10;w=6, "daily";q=1000;w=86400
	// X-Ratelimit-Limit: 10
	// X-Ratelimit-Remaining: 9
	// X-Ratelimit-Reset: 1767323046
	// allowed: false
	// Ratelimit: "burst";r=0;t=1, "daily";r=990;t=864
	// Ratelimit-Policy: "burst";q=10;w=6, "daily";q=1000;w=86400
	// Retry-After: 1
	// X-Ratelimit-Limit: 10
	// X-Ratelimit-Remaining: 0
	// X-Ratelimit-Reset: 1767323046
}

// Draft 7 puts the binding limit in one RateLimit dictionary.
func ExampleNew_draft7() {
	w, err := headers.New(headers.Options{Draft: headers.DraftIETF7, Omit: headers.XRateLimit})
	if err != nil {
		panic(err)
	}
	r, _ := exampleLimiter().Allow(context.Background(), "client-1")
	h := http.Header{}
	w.Write(h, &r)
	printHeader(h)
	// Output:
	// Ratelimit: limit=10, remaining=9, reset=1
	// Ratelimit-Policy: 10;w=6, 1000;w=86400
}

// Draft 6 writes one field per value.
func ExampleNew_draft6() {
	w, err := headers.New(headers.Options{Draft: headers.DraftIETF6, Omit: headers.XRateLimit})
	if err != nil {
		panic(err)
	}
	r, _ := exampleLimiter().Allow(context.Background(), "client-1")
	h := http.Header{}
	w.Write(h, &r)
	printHeader(h)
	// Output:
	// Ratelimit-Limit: 10
	// Ratelimit-Policy: 10;w=6, 1000;w=86400
	// Ratelimit-Remaining: 9
	// Ratelimit-Reset: 1
}

// Fields can be renamed or left out one by one.
func ExampleNew_names() {
	w, err := headers.New(headers.Options{
		Omit: headers.IETF | headers.XRateLimitReset,
		Names: map[headers.Field]string{
			headers.XRateLimitLimit:     "X-Rate-Limit-Limit",
			headers.XRateLimitRemaining: "X-Rate-Limit-Remaining",
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(w.Names())
	r, _ := exampleLimiter().Allow(context.Background(), "client-1")
	h := http.Header{}
	w.Write(h, &r)
	printHeader(h)
	// Output:
	// [Retry-After X-Rate-Limit-Limit X-Rate-Limit-Remaining]
	// X-Rate-Limit-Limit: 10
	// X-Rate-Limit-Remaining: 9
}

// A request that costs more than a limit's quota can never pass: it gets no
// Retry-After.
func ExampleWriter_Write_never() {
	w, err := headers.New(headers.Options{Omit: headers.XRateLimit})
	if err != nil {
		panic(err)
	}
	r, _ := exampleLimiter().AllowN(context.Background(), "client-1", 50)
	fmt.Println("allowed:", r.Allowed, "never:", r.RetryAfter == core.Never)
	h := http.Header{}
	w.Write(h, &r)
	printHeader(h)
	// Output:
	// allowed: false never: true
	// Ratelimit: "burst";r=0;t=0, "daily";r=1000;t=0
	// Ratelimit-Policy: "burst";q=10;w=6, "daily";q=1000;w=86400
}

// WriteKey adds a keyed hash of the partition key to the draft 11 fields;
// the key itself is never written.
func ExampleWriter_WriteKey() {
	w, err := headers.New(headers.Options{
		Omit:               headers.XRateLimit | headers.RateLimitPolicy,
		PartitionKeySecret: []byte("a secret of at least 16 bytes"),
	})
	if err != nil {
		panic(err)
	}
	r, _ := exampleLimiter().Allow(context.Background(), "client-1")
	h := http.Header{}
	w.WriteKey(h, &r, "client-1")
	printHeader(h)
	// Output:
	// Ratelimit: "burst";r=9;t=1;pk=:OqLHD1LVgkzPn1y8:, "daily";r=999;t=87;pk=:OqLHD1LVgkzPn1y8:
}
