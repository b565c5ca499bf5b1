package redisstore

import (
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

//go:embed lua/*.lua
var luaFiles embed.FS

func luaFile(name string) string {
	b, err := luaFiles.ReadFile("lua/" + name + ".lua")
	if err != nil {
		panic("redisstore: missing embedded script " + name) // a build defect, caught by every test
	}
	return string(b)
}

// maxExact bounds every quantity the scripts compute: integers up to 2^53
// are exact in a Lua double.
const maxExact = int64(1) << 53

// maxSpanUS is the longest span a state may hold, in µs (core's 36 years).
const maxSpanUS = (int64(1) << 60) / 1000

// algSpec is one limit compiled for the scripts: the Lua file defining its
// constructor, the constructor call with its parameters, and whether the
// deny cache is exact for it.
type algSpec struct {
	file      string
	ctor      string
	denyCache bool
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("redisstore: "+format+": %w", append(args, core.ErrInvalidConfig)...)
}

// wholeUS returns d in µs, failing unless d is a whole number of µs.
func wholeUS(what string, d time.Duration) (int64, error) {
	if d%time.Microsecond != 0 {
		return 0, invalid("%s %v is not a whole number of microseconds", what, d)
	}
	return int64(d / time.Microsecond), nil
}

// intervalUS is rate's emission interval (core rounds it up to a ns) rounded
// up to a whole µs: the rate granted is never above the one asked for.
func intervalUS(r core.Rate) int64 {
	p := int64(r.Period)
	ns := p / r.Limit
	if p%r.Limit != 0 {
		ns++
	}
	return (ns + 999) / 1000
}

// spanOK reports whether n·iv (both ≥ 1) fits the µs arithmetic.
func spanOK(n, iv int64) bool { return n <= maxSpanUS/iv }

func luaFloat(f float64) string { return fmt.Sprintf("%.17g", f) }

// specOf compiles a (validated) algorithm for the scripts.
func specOf(a core.Algorithm) (algSpec, error) {
	if err := a.Validate(); err != nil {
		return algSpec{}, err
	}
	switch a := a.(type) {
	case core.GCRA:
		burst := a.Burst
		if burst == 0 {
			burst = a.Rate.Limit
		}
		iv := intervalUS(a.Rate)
		if !spanOK(burst, iv) {
			return algSpec{}, invalid("GCRA: burst %d × interval %d µs exceeds 36 years", burst, iv)
		}
		return algSpec{"gcra", fmt.Sprintf("ALG.gcra(%d, %d, %d, nil)", iv, burst*iv, burst), true}, nil
	case core.LeakyBucket:
		capacity := a.Capacity
		if capacity == 0 {
			capacity = a.Rate.Limit
		}
		iv := intervalUS(a.Rate)
		if !spanOK(capacity, iv) {
			return algSpec{}, invalid("LeakyBucket: capacity %d × interval %d µs exceeds 36 years", capacity, iv)
		}
		free := max(0, a.NoDelay-1) * iv
		return algSpec{"gcra", fmt.Sprintf("ALG.gcra(%d, %d, %d, %d)", iv, capacity*iv, capacity, free), true}, nil
	case core.FixedWindow:
		w, err := wholeUS("FixedWindow: window", a.Window)
		if err != nil {
			return algSpec{}, err
		}
		if a.Limit >= maxExact {
			return algSpec{}, invalid("FixedWindow: limit %d exceeds 2^53", a.Limit)
		}
		return algSpec{"fixedwindow", fmt.Sprintf("ALG.fixedwindow(%d, %d, %t)", a.Limit, w, a.Anchored), true}, nil
	case core.SlidingWindow:
		w, err := wholeUS("SlidingWindow: window", a.Window)
		if err != nil {
			return algSpec{}, err
		}
		if a.Limit > maxExact/w {
			return algSpec{}, invalid("SlidingWindow: limit %d × window %d µs exceeds 2^53", a.Limit, w)
		}
		return algSpec{"slidingwindow", fmt.Sprintf("ALG.slidingwindow(%d, %d)", a.Limit, w), true}, nil
	}
	return algSpec{}, invalid("algorithm %T is not supported by the Redis store", a)
}

// compiled is one policy's script: its source, SHA-1, and whether its
// deny cache may be used.
type compiled struct {
	src, sha  string
	denyCache bool
}

func compile(p *core.Policy) (*compiled, error) {
	var b strings.Builder
	b.WriteString(luaFile("prelude"))
	files := map[string]bool{}
	var ctors []string
	deny := len(p.Limits()) == 1
	for _, l := range p.Limits() {
		s, err := specOf(l.Algorithm)
		if err != nil {
			return nil, fmt.Errorf("redisstore: policy %q: limit %q: %w", p.Name(), l.Name, err)
		}
		if !files[s.file] {
			files[s.file] = true
			b.WriteString(luaFile(s.file))
		}
		ctors = append(ctors, s.ctor)
		deny = deny && s.denyCache
	}
	b.WriteString("local LIMITS = {" + strings.Join(ctors, ", ") + "}\n")
	b.WriteString(luaFile("main"))
	src := b.String()
	h := sha1.Sum([]byte(src))
	return &compiled{src: src, sha: hex.EncodeToString(h[:]), denyCache: deny}, nil
}

var _ = math.MaxInt64
