package redisstore

import (
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/warmcurve"
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

// algSpec is one limit compiled for the scripts: the limit as the policy
// argument names it (name,param,...; see spec.lua), its name that of its
// constructor in ALG and of the Lua file defining it, and whether the deny
// cache is exact for it.
type algSpec struct {
	ctor      string
	denyCache bool
	gcra      *gcraSpec // GCRA and LeakyBucket: what a short record means
}

// gcraSpec is a GCRA or LeakyBucket limit as the scripts decide it, in µs:
// the emission interval, the tolerance (burst × interval), the burst, and
// for LeakyBucket the debt admitted without delay (free; -1 for GCRA).
// A take on a policy of one such limit replies with a short record (see
// step.lua), from which outcome computes the rest as gcra.lua does.
type gcraSpec struct {
	iv, tol, burst, free int64
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

// intervalUS is rate's emission interval (core's, rounded up to a ns)
// rounded up to a whole µs: the rate granted is never above the one asked
// for.
func intervalUS(r core.Rate) int64 {
	return int64((r.Interval() + time.Microsecond - 1) / time.Microsecond)
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
		burst := a.WithDefaults().Burst
		iv := intervalUS(a.Rate)
		if !spanOK(burst, iv) {
			return algSpec{}, invalid("GCRA: burst %d × interval %d µs exceeds 36 years", burst, iv)
		}
		return gcraAlg(iv, burst, -1), nil
	case core.LeakyBucket:
		return leakyBucketSpec(a)
	case core.FixedWindow:
		return fixedWindowSpec(a)
	case core.SlidingWindow:
		return slidingWindowSpec(a)
	case core.TokenBucket:
		return tokenBucketSpec(a)
	case core.Hybrid:
		return hybridSpec(a)
	case core.RollingWindow:
		return rollingWindowSpec(a)
	case core.SlidingLog:
		return slidingLogSpec(a)
	case core.WarmUp:
		return warmUpSpec(a)
	case core.Backoff:
		return backoffSpec(a)
	}
	return algSpec{}, invalid("algorithm %T is not supported by the Redis store", a)
}

func leakyBucketSpec(a core.LeakyBucket) (algSpec, error) {
	capacity := a.WithDefaults().Capacity
	iv := intervalUS(a.Rate)
	if !spanOK(capacity, iv) {
		return algSpec{}, invalid("LeakyBucket: capacity %d × interval %d µs exceeds 36 years", capacity, iv)
	}
	free := max(0, a.NoDelay-1) * iv
	return gcraAlg(iv, capacity, free), nil
}

// gcraAlg is the spec of a GCRA (free -1) or LeakyBucket limit of burst
// units (burst·iv checked by spanOK): the constructor call is written
// from the gcraSpec that decodes its short records, so the two cannot
// disagree.
func gcraAlg(iv, burst, free int64) algSpec {
	g := &gcraSpec{iv: iv, tol: burst * iv, burst: burst, free: free}
	lua := "nil"
	if free >= 0 {
		lua = strconv.FormatInt(free, 10)
	}
	return algSpec{fmt.Sprintf("gcra,%d,%d,%d,%s", iv, g.tol, burst, lua), true, g}
}

func fixedWindowSpec(a core.FixedWindow) (algSpec, error) {
	w, err := wholeUS("FixedWindow: window", a.Window)
	if err != nil {
		return algSpec{}, err
	}
	if a.Quota >= maxExact {
		return algSpec{}, invalid("FixedWindow: quota %d exceeds 2^53", a.Quota)
	}
	return algSpec{fmt.Sprintf("fixedwindow,%d,%d,%t", a.Quota, w, a.Anchored), true, nil}, nil
}

func slidingWindowSpec(a core.SlidingWindow) (algSpec, error) {
	w, err := wholeUS("SlidingWindow: window", a.Window)
	if err != nil {
		return algSpec{}, err
	}
	if a.Quota > maxExact/w {
		return algSpec{}, invalid("SlidingWindow: quota %d × window %d µs exceeds 2^53", a.Quota, w)
	}
	return algSpec{fmt.Sprintf("slidingwindow,%d,%d", a.Quota, w), true, nil}, nil
}

func tokenBucketSpec(a core.TokenBucket) (algSpec, error) {
	burst := a.WithDefaults().Burst
	if burst > (int64(1)<<52)/int64(a.Rate.Interval()) {
		return algSpec{}, invalid("TokenBucket: filling burst %d at %v takes 2^52 ns (52 days) or more", burst, a.Rate)
	}
	limit := a.Rate.PerSecond()
	return algSpec{fmt.Sprintf("tokenbucket,%s,%d", luaFloat(limit), burst), true, nil}, nil
}

func hybridSpec(a core.Hybrid) (algSpec, error) {
	w, err := wholeUS("Hybrid: window", a.Window)
	if err != nil {
		return algSpec{}, err
	}
	iv := intervalUS(core.Per(a.Quota, a.Window))
	if !spanOK(a.Quota, iv) || a.Quota*iv > maxSpanUS-w {
		return algSpec{}, invalid("Hybrid: window + quota × interval exceeds 36 years in µs")
	}
	return algSpec{fmt.Sprintf("hybrid,%d,%d,%d,%d", a.Quota, w, iv, a.Quota*iv), true, nil}, nil
}

func rollingWindowSpec(a core.RollingWindow) (algSpec, error) {
	if _, err := wholeUS("RollingWindow: window", a.Window); err != nil {
		return algSpec{}, err
	}
	per, err := wholeUS("RollingWindow: period", a.Period)
	if err != nil {
		return algSpec{}, err
	}
	if a.Quota >= maxExact {
		return algSpec{}, invalid("RollingWindow: quota %d exceeds 2^53", a.Quota)
	}
	pcap := a.PeriodCap
	if pcap == 0 {
		pcap = a.Quota
	}
	return algSpec{fmt.Sprintf("rollingwindow,%d,%d,%d,%d", a.Quota, pcap, per, int64(a.Window/a.Period)), true, nil}, nil
}

func slidingLogSpec(a core.SlidingLog) (algSpec, error) {
	w, err := wholeUS("SlidingLog: window", a.Window)
	if err != nil {
		return algSpec{}, err
	}
	if a.Quota > MaxSlidingLogQuota {
		return algSpec{}, invalid("SlidingLog: quota %d exceeds the Redis store's %d (use SlidingWindow or RollingWindow)", a.Quota, MaxSlidingLogQuota)
	}
	return algSpec{fmt.Sprintf("slidinglog,%d,%d,%t", a.Quota, w, a.CountRejected), !a.CountRejected, nil}, nil
}

// warmUpSpec hands the script the curve core.WarmUp decides with
// (package warmcurve).
func warmUpSpec(a core.WarmUp) (algSpec, error) {
	cf := a.ColdFactor
	if cf == 0 {
		cf = warmcurve.DefaultColdFactor
	}
	if float64(a.WarmUp) >= 1<<52 || float64(a.Rate.Period)*cf >= 1<<52 {
		return algSpec{}, invalid("WarmUp: warm-up %v or period × cold factor reaches 2^52 ns (52 days)", a.WarmUp)
	}
	c := warmcurve.Of(a.Rate.Count, a.Rate.Period, a.WarmUp, cf)
	return algSpec{fmt.Sprintf("warmup,%d,%s,%s,%s,%s,%s", a.Rate.Count,
		luaFloat(c.Stable), luaFloat(c.Threshold), luaFloat(c.MaxPermits), luaFloat(c.Slope), luaFloat(c.CoolDown)), true, nil}, nil
}

// MaxSlidingLogQuota is the largest SlidingLog Quota the Redis store
// accepts: the script reads and writes the whole log (Quota+3 numbers) at
// every decision.
const MaxSlidingLogQuota = 4096

// compiled is one policy as the scripts decide it: the function library
// every policy shares, the policy's argument naming its limits, which ends
// every call's arguments, the size of its replies' records, whether its
// deny cache may be used, and its script for EVAL and EVALSHA, written at
// its first use.
type compiled struct {
	*functions
	spec      string // the limits' constructors, joined by ';' (see spec.lua)
	record    int    // bytes of one request's reply (see step.lua)
	denyCache bool
	gcra      *gcraSpec // a policy of one GCRA or LeakyBucket limit: its takes' replies are short records
	specArg   any       // spec, boxed once
	evalOnce  sync.Once
	ev        *script
}

// script returns sc's script for EVAL and EVALSHA.
func (sc *compiled) script() *script {
	sc.evalOnce.Do(func() { sc.ev = newScript(sc.spec) })
	return sc.ev
}

// functions is the Redis 7 function library that decides every policy,
// with the policy's limits an argument of each call, and its functions'
// names (for FUNCTION LOAD and FCALL). One library serves every policy,
// so a policy bound, reloaded with new limits or made for one key's
// override costs Redis nothing to load and no memory of its own but its
// functions (see library).
type functions struct {
	lib, fn string
	takeFn  string // the library's function deciding one take (take.lua)
	batchFn string // the library's function deciding several requests (batch.lua)
	// The command's leading arguments, boxed once: FCALL fn, FCALL
	// takeFn, FCALL batchFn.
	fnArg, takeArg, batchArg any
}

// script is a policy's code for EVAL and EVALSHA, its limits constants
// (as EVAL runs the whole source at every call, parsing the policy
// argument there would cost every call): its source and SHA-1. Redis
// caches one script per policy, until SCRIPT FLUSH; Redis 7 and later
// use the library instead, unless Options.NoFunctions.
type script struct {
	src, sha string
	shaArg   any // EVALSHA sha's argument, boxed once
}

// code is the function library of this build of the store.
var code = newFunctions(maxBuilt)

// algFiles are the Lua files defining ALG's constructors, one per
// algorithm shape.
var algFiles = []string{"gcra", "fixedwindow", "slidingwindow", "tokenbucket", "hybrid", "rollingwindow", "slidinglog", "warmup", "backoff"}

// defs returns the definitions the library and the scripts start with: the
// prelude and the constructors of files.
func defs(files []string) string {
	var b strings.Builder
	b.WriteString(luaFile("prelude"))
	for _, f := range files {
		b.WriteString(luaFile(f))
	}
	return b.String()
}

// newFunctions writes the library, with every algorithm, keeping the
// functions of up to 2 × keep policies (see library).
func newFunctions(keep int) *functions {
	bounds := fmt.Sprintf("local MAXLIMITS, MAXLOG, MAXPERIODS = %d, %d, %d\n", store.MaxLimits, MaxSlidingLogQuota, core.MaxRollingPeriods)
	lib := library(defs(algFiles)+bounds+luaFile("spec"), keep)
	h := sha1.Sum([]byte(lib))
	name := "fg_" + hex.EncodeToString(h[:])
	f := &functions{lib: strings.ReplaceAll(lib, libName, name), fn: name, takeFn: name + "_t", batchFn: name + "_b"}
	f.fnArg, f.takeArg, f.batchArg = f.fn, f.takeFn, f.batchFn
	return f
}

// newScript writes the script deciding one request of the policy whose
// limits spec names: the prelude, the constructors of its algorithms, the
// limits, step.lua, then main.lua on the arguments without the policy
// argument, which every call ends with.
func newScript(spec string) *script {
	var ctors, files []string
	for l := range strings.SplitSeq(spec, ";") {
		name, params, _ := strings.Cut(l, ",")
		ctors = append(ctors, "ALG."+name+"("+params+")")
		if !slices.Contains(files, name) {
			files = append(files, name)
		}
	}
	src := defs(files) + "local LIMITS = {" + strings.Join(ctors, ", ") + "}\n" + luaFile("step") +
		"\nARGV[#ARGV] = nil\n" + luaFile("main")
	h := sha1.Sum([]byte(src))
	sc := &script{src: src, sha: hex.EncodeToString(h[:])}
	sc.shaArg = sc.sha
	return sc
}

func compile(p *core.Policy) (*compiled, error) {
	var ctors []string
	deny := len(p.Limits()) == 1
	var gcra *gcraSpec
	for _, l := range p.Limits() {
		s, err := specOf(l.Algorithm)
		if err != nil {
			return nil, fmt.Errorf("redisstore: policy %q: limit %q: %w", p.Name(), l.Name, err)
		}
		ctors = append(ctors, s.ctor)
		deny = deny && s.denyCache
		if len(p.Limits()) == 1 {
			gcra = s.gcra
		}
	}
	sc := &compiled{functions: code, spec: strings.Join(ctors, ";"),
		record: 8 * (2 + 7*len(p.Limits())), denyCache: deny, gcra: gcra}
	sc.specArg = sc.spec
	return sc, nil
}

// maxBuilt is how many policies' deciding functions the library keeps in
// each of its two generations (see library): about 5 KB of Redis's Lua
// memory each.
const maxBuilt = 512

// libName stands for the library's name in its source, which is fg_ and
// the SHA-1 of the source written with libName.
const libName = "fg_LIBRARY"

// library returns the function library deciding with defs (the prelude,
// the algorithms and spec.lua), its name libName: function libName runs
// main.lua, one request, libName_t runs take.lua (or, for a policy of one
// GCRA or LeakyBucket limit, step.lua's TAKE), one take, and libName_b
// runs batch.lua, several. Each call's last argument names its policy's
// limits (spec.lua): the library builds that policy's functions (step.lua
// and the three entry points) at its first call and keeps them in two
// generations of up to keep policies each: a policy called is found in
// the current one, or moved there from the previous one, or built; when
// the current one is full, it becomes the previous one (the previous one
// forgotten). So up to keep policies in use are never built again
// however many others come and go, and the memory kept is bounded. EVALSHA
// runs a whole script, defining every helper and building the limits
// again at each call; a function runs only its body. Redis runs a
// library's code at load time without the standard libraries (math,
// string, table, struct), so the definitions run at the first call, and
// are kept.
func library(defs string, keep int) string {
	var b strings.Builder
	b.WriteString("#!lua name=" + libName + "\n")
	b.WriteString("local built, old, nbuilt, build = {}, {}, 0, nil\n")
	b.WriteString("local function init()\n")
	b.WriteString(defs)
	b.WriteString("return function(LIMITS)\n")
	b.WriteString(luaFile("step"))
	for i, f := range []string{"main", "take", "batch"} {
		if i == 0 {
			b.WriteString("\nlocal E = {function(KEYS, ARGV)\n")
		} else {
			b.WriteString("\nend, function(KEYS, ARGV)\n")
		}
		b.WriteString(luaFile(f))
	}
	// A policy with a take function of its own (TAKE, see step.lua) runs
	// it instead of take.lua.
	b.WriteString("\nend}\nif TAKE then E[2] = TAKE end\nreturn E\nend, limitsOf\nend\n")
	// found returns the functions of the policy spec names, not in the
	// current generation: moved from the previous one, or built.
	b.WriteString("local limitsOf\n")
	b.WriteString("local function found(spec)\n")
	b.WriteString("  local f = old[spec]\n")
	b.WriteString("  if f == nil then\n")
	b.WriteString("    if build == nil then build, limitsOf = init() end\n")
	b.WriteString("    f = build(limitsOf(spec))\n")
	b.WriteString("  end\n")
	b.WriteString("  if nbuilt >= " + strconv.Itoa(keep) + " then old, built, nbuilt = built, {}, 0 end\n")
	b.WriteString("  built[spec], nbuilt = f, nbuilt + 1\n")
	b.WriteString("  return f\n")
	b.WriteString("end\n")
	// Each function takes the policy argument off the end of its
	// arguments and calls the policy's own.
	for i, suffix := range []string{"", "_t", "_b"} {
		b.WriteString("redis.register_function('" + libName + suffix + "', function(keys, args)\n")
		b.WriteString("  local n = #args\n")
		b.WriteString("  local spec = args[n]\n")
		b.WriteString("  args[n] = nil\n")
		b.WriteString("  local f = built[spec] or found(spec)\n")
		b.WriteString("  return f[" + strconv.Itoa(i+1) + "](keys, args)\n")
		b.WriteString("end)\n")
	}
	return b.String()
}

// backoffSpec compiles a Backoff (core's defaults applied): every duration
// must be a whole number of µs. Free ≤ 2^32 and spans ≤ 36 years keep every
// instant and count the script computes below 2^53.
func backoffSpec(a core.Backoff) (algSpec, error) {
	d := a.WithDefaults()
	w, base, mx, fg := d.Window, d.Base, d.Max, d.Forgive
	var us [4]int64
	for i, d := range []struct {
		name string
		v    time.Duration
	}{{"window", w}, {"base", base}, {"max", mx}, {"forgive", fg}} {
		v, err := wholeUS("Backoff: "+d.name, d.v)
		if err != nil {
			return algSpec{}, err
		}
		us[i] = v
	}
	return algSpec{fmt.Sprintf("backoff,%d,%d,%d,%d,%d", a.Free, us[0], us[1], us[2], us[3]), true, nil}, nil
}
