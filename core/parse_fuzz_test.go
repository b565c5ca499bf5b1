package core_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/core"
)

// parseSeeds are inputs of every shape: valid limits of every algorithm
// and parameter, and errors of every class.
var parseSeeds = []string{
	"100/min", "10/s burst 20", "5/15m", "1000/day", "100/min sliding",
	"10/s token-bucket burst 50", "10/s leaky-bucket burst 20 no-delay 5",
	"1000/day fixed-window anchored", "5/min sliding-log count-rejected",
	"100/min hybrid", "10000/day rolling-window every 1h cap 1000",
	"10/s warm-up 1m cold 2.5", "5/15m backoff base 1m max 1h forgive 2d",
	"7/1h30m", "7/1.5h", "1/µs", "1/1152921504606846976ns", "0100/min gcra",
	"", "100", "1.5/s", "0/min", "9223372036854775808/min", "100/mni",
	"100/1.5ns", "100/30m1h", "10/s brust 20", "10/s burst 5 burst 6",
	"10/s anchored", "10/s warm-up", "10/day rolling every 7h",
	"10/s leaky no-delay 6 burst 5", "70000/min sliding-log",
	"10/s warm-up 1m cold 0.5", "burst 10/s",
}

// FuzzParseAlgorithm: ParseAlgorithm never panics; an error is a
// ParseError whose token is found at its column; a limit that parses is
// valid, and its String parses to the same value and String.
func FuzzParseAlgorithm(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := core.ParseAlgorithm(s)
		if err != nil {
			checkFuzzError(t, s, err)
			return
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("%q parses to %#v, which is invalid: %v", s, a, err)
		}
		out := a.String()
		b, err := core.ParseAlgorithm(out)
		if err != nil {
			t.Fatalf("%q parses to %#v, whose String %q does not parse: %v", s, a, out, err)
		}
		if a != b {
			t.Fatalf("%q parses to %#v, whose String %q parses to %#v", s, a, out, b)
		}
		if b.String() != out {
			t.Fatalf("%q: String %q, then %q", s, out, b.String())
		}
	})
}

// FuzzParsePolicy: as FuzzParseAlgorithm, for policies.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add("api", s)
	}
	for _, s := range []string{
		"burst: 10/s burst 20; daily: 10000/day fixed-window", "10/s; 1000/day",
		`"per user": 5/min; "a;b:c\"": 1/s`, `"\xff": 1/s`, "a: 10/s; a: 1/min", "10/s; 20/s",
		"1/s; 2/min; 3/hour; 4/day; 5/7d", `"a" x: 10/s`, `"a`, "a b: 10/s", "10/s;",
	} {
		f.Add("api", s)
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, name, s string) {
		p, err := core.ParsePolicy(name, s)
		if !utf8.ValidString(name) {
			// A name not UTF-8 is refused, by NewPolicy: not a syntax
			// error in s.
			if !errors.Is(err, core.ErrInvalidConfig) {
				t.Fatalf("policy name %q: err %v, want ErrInvalidConfig", name, err)
			}
			return
		}
		if err != nil {
			checkFuzzError(t, s, err)
			return
		}
		out := p.String()
		q, err := core.ParsePolicy(name, out)
		if err != nil {
			t.Fatalf("%q parses, but its String %q does not: %v", s, out, err)
		}
		pl, ql := p.Limits(), q.Limits()
		if len(pl) != len(ql) {
			t.Fatalf("%q: %d limits, %q: %d", s, len(pl), out, len(ql))
		}
		for i := range pl {
			if pl[i] != ql[i] {
				t.Fatalf("%q: limit %d is %#v, from its String %q %#v", s, i, pl[i], out, ql[i])
			}
		}
		if q.String() != out {
			t.Fatalf("%q: String %q, then %q", s, out, q.String())
		}
	})
}

// checkFuzzError asserts that err is a ParseError wrapping
// ErrInvalidConfig whose token is in s at its column.
func checkFuzzError(t *testing.T, s string, err error) {
	t.Helper()
	var pe *core.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, core.ErrInvalidConfig) {
		t.Fatalf("%q: %v is not a ParseError wrapping ErrInvalidConfig", s, err)
	}
	if pe.Column < 1 || pe.Column > len(s)+1 || !strings.HasPrefix(s[pe.Column-1:], pe.Token) {
		t.Fatalf("%q: token %q not at column %d: %v", s, pe.Token, pe.Column, err)
	}
	if !strings.Contains(err.Error(), "column ") {
		t.Fatalf("%q: %v names no column", s, err)
	}
}

// FuzzAlgorithmString: for algorithm values built from any fields, String
// never panics and parses exactly when the value is valid, to the value
// with its defaults filled in.
func FuzzAlgorithmString(f *testing.F) {
	f.Add(uint8(0), int64(100), int64(0), int64(time.Minute), int64(0), int64(0), int64(0), 0.0, false)
	f.Add(uint8(2), int64(10), int64(20), int64(time.Second), int64(5), int64(0), int64(0), 0.0, false)
	f.Add(uint8(7), int64(10000), int64(1000), int64(24*time.Hour), int64(time.Hour), int64(0), int64(0), 0.0, false)
	f.Add(uint8(8), int64(10), int64(0), int64(time.Second), int64(time.Minute), int64(0), int64(0), 2.5, false)
	f.Add(uint8(9), int64(5), int64(0), int64(15*time.Minute), int64(time.Minute), int64(time.Hour), int64(0), 0.0, false)
	f.Add(uint8(8), int64(1), int64(0), int64(1), int64(1), int64(0), int64(0), math.Ldexp(1, 59), false)
	f.Fuzz(func(t *testing.T, kind uint8, n1, n2, d1, d2, d3, d4 int64, cf float64, flag bool) {
		checkRoundTrip(t, algorithmOf(kind, n1, n2, time.Duration(d1), time.Duration(d2), time.Duration(d3), time.Duration(d4), cf, flag))
	})
}
