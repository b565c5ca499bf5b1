package headers_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/seconds"
)

// heldNames are the fields FuzzCombine holds values in before Combine: the
// default names of every draft's fields.
var heldNames = []string{"Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
	"RateLimit-Policy", "RateLimit", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}

// FuzzCombine holds arbitrary values (one or two lines) in the rate-limit
// fields, then combines a real decision with them: Combine never panics,
// every field it writes parses as its draft says, and a denial's
// Retry-After is no shorter than the decision's own wait. draft/3 gives
// the Writer's other options (fuzzOptions): renamed, the values are held
// under its names and the default ones, and those not its own are left
// as they were.
func FuzzCombine(f *testing.F) {
	f.Add(uint16(0x1ff), uint16(0), `"a";q=1;w=2`, `"a";r=0;t=5`, "0", "7", uint8(0), false, uint8(3))
	f.Add(uint16(0x1ff), uint16(0x10), `1;w=2, 3;w=4`, `limit=1, remaining=0, reset=9`, "0", "x", uint8(1), true, uint8(12))
	f.Add(uint16(0x1ff), uint16(0x20), `"a, \"b;r=";q=1`, `"a";r=0;t=5;pk=:AAAA:`, "Fri, 31 Dec 1999 23:59:59 GMT", "", uint8(2), true, uint8(12))
	// Renamed, of draft 7; renamed, of draft 11, without X-RateLimit and RateLimit.
	f.Add(uint16(0x1ff), uint16(0x1), `10;w=60`, `limit=1, remaining=0, reset=9`, "0", "3", uint8(3+1), false, uint8(12))
	f.Add(uint16(0x1ff), uint16(0), `"a";q=1;w=2`, `"a";r=0;t=5`, "0", "7", uint8(3*(1|4|16)), true, uint8(12))
	f.Fuzz(func(t *testing.T, which, twice uint16, list1, list2, int1, int2 string, draft uint8, pk bool, n uint8) {
		d := headers.Draft(draft % 3)
		opts := headers.Options{Draft: d}
		fuzzOptions(&opts, draft/3)
		if pk && d == headers.DraftIETF11 {
			opts.PartitionKeySecret = []byte("fuzz secret, sixteen bytes at least")
		}
		w, err := headers.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		for i, name := range heldNames {
			if which&(1<<i) == 0 {
				continue
			}
			v := int1
			switch {
			case name == "RateLimit-Policy":
				v = list1
			case name == "RateLimit":
				v = list2
			case i%2 == 0:
				v = int2
			}
			names := []string{name}
			if opts.Names != nil {
				names = append(names, "Fz-"+name)
			}
			for _, name := range names {
				h[http.CanonicalHeaderKey(name)] = []string{v}
				if twice&(1<<i) != 0 {
					h[http.CanonicalHeaderKey(name)] = []string{v, int1}
				}
			}
		}
		l := newLimiter(t, coretest.NewClock(t0), burst, daily)
		r := takeN(t, l, int(n%16)+1)
		before := h.Clone()
		w.CombineKey(h, &r, "user")
		written := http.Header{}
		on := w.Fields()
		for name, vs := range before {
			if !slices.Contains(w.Names(), name) && !slices.Equal(h[name], vs) {
				t.Fatalf("%s, not the Writer's, %q made %q", name, vs, h[name])
			}
		}
		for _, name := range w.Names() {
			if on&headers.RetryAfter != 0 && name == w.Names()[0] && (r.Allowed || r.RetryAfter == core.Never) {
				continue // not Combine's to write
			}
			written[name] = h[name]
		}
		h = defaultNamed(written, &opts)
		checkValid(t, h, d)
		if !r.Allowed && r.RetryAfter != core.Never && on&headers.RetryAfter != 0 {
			ra := fieldInt(t, h, "Retry-After")
			if ra < seconds.Positive(r.RetryAfter) {
				t.Fatalf("Retry-After %d, the decision's own wait %v", ra, r.RetryAfter)
			}
			// A client obeying a reset instead is not sent sooner.
			if on&headers.XRateLimitReset != 0 && fieldInt(t, h, "X-RateLimit-Reset") < r.At().Unix()+ra {
				t.Fatalf("X-RateLimit-Reset %s, Retry-After %d from %v", h.Get("X-RateLimit-Reset"), ra, r.At())
			}
			if d == headers.DraftIETF6 && on&headers.RateLimitReset != 0 && fieldInt(t, h, "RateLimit-Reset") < ra {
				t.Fatalf("RateLimit-Reset %s, Retry-After %d", h.Get("RateLimit-Reset"), ra)
			}
		}
	})
}
