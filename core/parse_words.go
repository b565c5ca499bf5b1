package core

// The words of the rate syntax: the algorithms and their parameters.

// algID names one algorithm of the syntax.
type algID uint8

const (
	algGCRA algID = iota
	algTokenBucket
	algLeakyBucket
	algFixedWindow
	algSlidingWindow
	algSlidingLog
	algHybrid
	algRollingWindow
	algWarmUp
	algBackoff
	numAlgs
)

// algNames are the canonical spellings, in the order of algID.
var algNames = [numAlgs]string{
	"gcra", "token-bucket", "leaky-bucket", "fixed-window", "sliding-window",
	"sliding-log", "hybrid", "rolling-window", "warm-up", "backoff",
}

// algAliases are the other spellings accepted for an algorithm.
var algAliases = map[string]algID{
	"token":   algTokenBucket,
	"leaky":   algLeakyBucket,
	"fixed":   algFixedWindow,
	"sliding": algSlidingWindow,
	"rolling": algRollingWindow,
	"warmup":  algWarmUp,
}

// argKind is what a word takes after it.
type argKind uint8

const (
	argNone     argKind = iota
	argCount            // a whole number ≥ 1
	argCount0           // a whole number ≥ 0
	argDuration         // a duration > 0
	argFactor           // a decimal number ≥ 1
)

var argWants = [...]string{
	argCount:    "a whole number ≥ 1",
	argCount0:   "a whole number ≥ 0",
	argDuration: "a duration such as 30s or 1h",
	argFactor:   "a decimal number ≥ 1 such as 3 or 2.5",
}

// param is a parameter word: the algorithms it applies to and the field
// it sets.
type param struct {
	name string
	algs []algID
	arg  argKind
	set  func(*parsed, *setting)
}

// warmUpParam is the duration the warm-up algorithm word takes.
var warmUpParam = &param{name: "warm-up", algs: []algID{algWarmUp}, arg: argDuration,
	set: func(p *parsed, s *setting) { p.warm = s.d }}

// everyParam is the period a rolling window rolls by, which it requires.
var everyParam = &param{name: "every", algs: []algID{algRollingWindow}, arg: argDuration,
	set: func(p *parsed, s *setting) { p.every = s.d }}

// params are the parameter words, in the order String writes them.
var params = []*param{
	{name: "burst", algs: []algID{algGCRA, algTokenBucket, algLeakyBucket}, arg: argCount,
		set: func(p *parsed, s *setting) { p.burst = s.n }},
	{name: "no-delay", algs: []algID{algLeakyBucket}, arg: argCount0,
		set: func(p *parsed, s *setting) { p.noDelay = s.n }},
	{name: "anchored", algs: []algID{algFixedWindow},
		set: func(p *parsed, _ *setting) { p.anchored = true }},
	{name: "count-rejected", algs: []algID{algSlidingLog},
		set: func(p *parsed, _ *setting) { p.countRejected = true }},
	everyParam,
	{name: "cap", algs: []algID{algRollingWindow}, arg: argCount,
		set: func(p *parsed, s *setting) { p.periodCap = s.n }},
	{name: "cold", algs: []algID{algWarmUp}, arg: argFactor,
		set: func(p *parsed, s *setting) { p.cold = s.f }},
	{name: "base", algs: []algID{algBackoff}, arg: argDuration,
		set: func(p *parsed, s *setting) { p.base = s.d }},
	{name: "max", algs: []algID{algBackoff}, arg: argDuration,
		set: func(p *parsed, s *setting) { p.maxLock = s.d }},
	{name: "forgive", algs: []algID{algBackoff}, arg: argDuration,
		set: func(p *parsed, s *setting) { p.forgive = s.d }},
}

func lookupParam(w string) *param {
	for _, p := range params {
		if p.name == w {
			return p
		}
	}
	return nil
}

func lookupAlg(w string) (algID, bool) {
	for i, n := range algNames {
		if n == w {
			return algID(i), true
		}
	}
	a, ok := algAliases[w]
	return a, ok
}

func (p *param) appliesTo(a algID) bool {
	for _, x := range p.algs {
		if x == a {
			return true
		}
	}
	return false
}
