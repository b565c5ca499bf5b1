package headers_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/internal/sftest"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/headers"
)

// FuzzWrite decides a few requests on a policy of one or two GCRA limits of
// random names, rates, bursts and costs at random instants, and checks that
// every field written for every decision is valid: the IETF fields parse as
// the Structured Fields of their draft, one item per limit with the limits'
// names, and the integer fields are non-negative integers that agree with
// the decision. draft/3 gives the Writer's other options (fuzzOptions).
func FuzzWrite(f *testing.F) {
	f.Fuzz(func(t *testing.T, name1, name2 string, two bool,
		limit1, period1, burst1, limit2, period2, burst2, cost int64,
		steps uint8, step int64, draft uint8, key string) {
		limits := []core.Limit{{Name: name1, Algorithm: core.GCRA{Rate: core.Per(limit1, time.Duration(period1)), Burst: burst1}}}
		if two {
			if name2 == name1 {
				name2 += "2"
			}
			limits = append(limits, core.Limit{Name: name2, Algorithm: core.GCRA{Rate: core.Per(limit2, time.Duration(period2)), Burst: burst2}})
		}
		p, err := core.NewPolicy("fuzz", limits...)
		if err != nil {
			return // an invalid rate or burst
		}
		clk := coretest.NewClock(t0)
		l, err := core.NewLimiter(p, core.WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		d := headers.Draft(draft % 3)
		opts := headers.Options{Draft: d}
		fuzzOptions(&opts, draft/3)
		if d == headers.DraftIETF11 && key != "" {
			opts.PartitionKeySecret = []byte("fuzz secret, sixteen bytes at least")
		}
		w, err := headers.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		cost = max(cost, 1)
		wait := time.Duration(uint64(step) % uint64(100*time.Second))
		for i := range int(steps%16) + 1 {
			c := int64(1)
			if i%3 == 2 {
				c = cost
			}
			r, err := l.AllowN(context.Background(), key, c)
			if err != nil {
				t.Fatal(err)
			}
			h := http.Header{}
			w.WriteKey(h, &r, key)
			checkFuzzed(t, defaultNamed(h, &opts), d, w.Fields(), &r, limits)
			clk.Advance(wait)
		}
	})
}

// checkFuzzed checks the fields of h, written by a Writer of draft d and
// fields on (under their default names) for r, a decision on limits.
func checkFuzzed(t *testing.T, h http.Header, d headers.Draft, on headers.Field, r *core.Result, limits []core.Limit) {
	t.Helper()
	checkValid(t, h, d)
	retry, hasRetry := h["Retry-After"]
	if want := !r.Allowed && r.RetryAfter != core.Never && on&headers.RetryAfter != 0; hasRetry != want {
		t.Fatalf("Retry-After %q written for allowed=%v retry=%v", retry, r.Allowed, r.RetryAfter)
	}
	if hasRetry && fieldInt(t, h, "Retry-After") < 1 {
		t.Fatalf("Retry-After %q", retry)
	}
	for _, f := range singleFields[1:] {
		if _, has := h[http.CanonicalHeaderKey(f.String())]; has != (on&f != 0) {
			t.Fatalf("%v written %v, of fields %v", f, has, on)
		}
	}
	if on&headers.XRateLimit != 0 {
		checkFuzzedX(t, h, r, hasRetry)
	}
	switch d {
	case headers.DraftIETF11:
		checkFuzzed11(t, h, r, limits)
	case headers.DraftIETF7:
		checkFuzzed7(t, h, r)
	case headers.DraftIETF6:
		checkFuzzed6(t, h, r)
	}
}

// checkFuzzedX checks the X-RateLimit fields of h, written for r.
func checkFuzzedX(t *testing.T, h http.Header, r *core.Result, hasRetry bool) {
	t.Helper()
	if !r.Allowed && fieldInt(t, h, "X-RateLimit-Remaining") != 0 {
		t.Fatalf("denied with X-RateLimit-Remaining %q", h.Get("X-RateLimit-Remaining"))
	}
	fieldInt(t, h, "X-RateLimit-Limit")
	reset := fieldInt(t, h, "X-RateLimit-Reset")
	if ra := max(r.RetryAfter, 1); hasRetry && ra < 100*365*24*time.Hour {
		// A refused client that waits for X-RateLimit-Reset passes, and
		// waits less than a second more than it must.
		due := r.At().Add(ra)
		if time.Unix(reset, 0).Before(due) || !time.Unix(reset-1, 0).Before(due) {
			t.Fatalf("X-RateLimit-Reset %d for a retry due at %v", reset, due)
		}
	}
}

// fieldInt returns the integer value of field name of h.
func fieldInt(t *testing.T, h http.Header, name string) int64 {
	t.Helper()
	n, err := sftest.CheckInt(h.Get(name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

// checkFuzzed11 checks the draft 11 lists: one item per limit, with the
// limit's name, r=0 for a limit that denied, and no t after Retry-After.
func checkFuzzed11(t *testing.T, h http.Header, r *core.Result, limits []core.Limit) {
	t.Helper()
	if h["Ratelimit-Policy"] == nil || h["Ratelimit"] == nil {
		return // an omitted field: checkValid checked the other
	}
	pol, err := sftest.CheckPolicy11(h.Get("RateLimit-Policy"))
	if err != nil {
		t.Fatal(err)
	}
	rl, err := sftest.CheckRateLimit11(h.Get("RateLimit"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pol) != len(limits) || len(rl) != len(limits) {
		t.Fatalf("%d limits, %d policies, %d items", len(limits), len(pol), len(rl))
	}
	seen := map[string]bool{}
	for i, lim := range limits {
		name := pol[i].Bare.(string)
		if rl[i].Bare.(string) != name {
			t.Fatalf("item %d: policy %q, limit %q", i, name, rl[i].Bare)
		}
		if plainName(lim.Name) && name != lim.Name {
			t.Fatalf("name %q written as %q", lim.Name, name)
		}
		if seen[name] {
			t.Fatalf("two limits written as %q", name)
		}
		seen[name] = true
		if rem, _ := rl[i].Param("r"); !r.Limits()[i].Allowed && rem != int64(0) {
			t.Fatalf("limit %q denied with r=%v", lim.Name, rem)
		}
	}
	if _, hasRetry := h["Retry-After"]; hasRetry {
		// No effective window ends after Retry-After for a limit that
		// denied the request.
		ra := fieldInt(t, h, "Retry-After")
		for i, lr := range r.Limits() {
			if tt, _ := rl[i].Param("t"); !lr.Allowed && tt.(int64) > ra {
				t.Fatalf("limit %q: t=%v after Retry-After %d", lr.Name, tt, ra)
			}
		}
	}
}

// checkFuzzed7 checks the draft 7 dictionary: remaining 0 on a denial, and
// its reset Retry-After's.
func checkFuzzed7(t *testing.T, h http.Header, r *core.Result) {
	t.Helper()
	if h["Ratelimit"] == nil {
		return // omitted
	}
	v, err := sftest.CheckRateLimit7(h.Get("RateLimit"))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Allowed && v[1] != 0 {
		t.Fatalf("denied with %q", h.Get("RateLimit"))
	}
	if retry, ok := h["Retry-After"]; ok && strconv.FormatInt(v[2], 10) != retry[0] {
		t.Fatalf("reset %d, Retry-After %s", v[2], retry[0])
	}
}

// checkFuzzed6 checks the draft 6 fields: remaining 0 on a denial, and the
// reset Retry-After's.
func checkFuzzed6(t *testing.T, h http.Header, r *core.Result) {
	t.Helper()
	if _, ok := h["Ratelimit-Remaining"]; ok && !r.Allowed && fieldInt(t, h, "RateLimit-Remaining") != 0 {
		t.Fatalf("denied with RateLimit-Remaining %q", h.Get("RateLimit-Remaining"))
	}
	if retry, ok := h["Retry-After"]; ok && h["Ratelimit-Reset"] != nil && h.Get("RateLimit-Reset") != retry[0] {
		t.Fatalf("reset %s, Retry-After %s", h.Get("RateLimit-Reset"), retry[0])
	}
}

// plainName reports whether name is written as itself: printable ASCII
// without '%' (quotes and backslashes are escaped, and unescaped by
// parsing), of at most 128 bytes (a longer one is cut, with a hash).
func plainName(name string) bool {
	if len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c > 0x7e || c == '%' {
			return false
		}
	}
	return true
}
