package core

import (
	"strconv"
	"strings"
	"time"
)

// ParseAlgorithm parses one limit written in the rate syntax (see "Rate
// syntax" in the package documentation): a rate such as "100/min", then
// optional words naming the algorithm, when it is not the default [GCRA],
// and its parameters, such as "10/s burst 20", "1000/day fixed-window" or
// "5/15m backoff base 1m".
//
// The algorithm returned has every default filled in, as its WithDefaults
// method would (Burst, Capacity and PeriodCap the rate's count, ColdFactor
// 3, Backoff's durations), and is valid: its Validate returns nil. Its
// String method writes it back in the canonical form, which parses to the
// same value.
//
// An error is a [*ParseError] wrapping [ErrInvalidConfig]: it names the
// offending token and its byte column. The values are validated by the
// algorithm's own Validate; the token blamed for its error is the one, in
// the order written, whose addition made the value invalid (the rate when
// the algorithm is invalid with its rate alone).
func ParseAlgorithm(s string) (Algorithm, error) {
	a, err := parseAlgorithm(s, 0, false)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// parsed is a limit as written: the algorithm, its rate and the parameters
// given (zero when not given).
type parsed struct {
	alg                       algID
	count                     int64
	period                    time.Duration
	burst, noDelay, periodCap int64
	anchored, countRejected   bool
	every, warm               time.Duration
	base, maxLock, forgive    time.Duration
	cold                      float64
	algCol                    int // 0-based column of the algorithm word; -1 for the default
	algTok                    string
	rateCol                   int
	rateTok                   string
	settings                  []setting
}

// setting is one parameter as written.
type setting struct {
	p    *param
	col  int    // 0-based byte column of the word
	text string // the word and its argument as written
	n    int64
	d    time.Duration
	f    float64
}

// build returns the algorithm p describes, with every default filled in.
func (p *parsed) build() Algorithm {
	r := Rate{Count: p.count, Period: p.period}
	switch p.alg {
	case algTokenBucket:
		return TokenBucket{Rate: r, Burst: p.burst}.WithDefaults()
	case algLeakyBucket:
		return LeakyBucket{Rate: r, Capacity: p.burst, NoDelay: p.noDelay}.WithDefaults()
	case algFixedWindow:
		return FixedWindow{Quota: p.count, Window: p.period, Anchored: p.anchored}
	case algSlidingWindow:
		return SlidingWindow{Quota: p.count, Window: p.period}
	case algSlidingLog:
		return SlidingLog{Quota: p.count, Window: p.period, CountRejected: p.countRejected}
	case algHybrid:
		return Hybrid{Quota: p.count, Window: p.period}
	case algRollingWindow:
		return RollingWindow{Quota: p.count, Window: p.period, Period: p.every, PeriodCap: orDefault(p.periodCap, p.count)}
	case algWarmUp:
		cf := p.cold
		if cf == 0 {
			cf = defaultColdFactor
		}
		return WarmUp{Rate: r, WarmUp: p.warm, ColdFactor: cf}
	case algBackoff:
		return Backoff{Free: p.count, Window: p.period, Base: p.base, Max: p.maxLock, Forgive: p.forgive}.WithDefaults()
	default:
		return GCRA{Rate: r, Burst: p.burst}.WithDefaults()
	}
}

// defaultColdFactor is the ColdFactor a zero one stands for.
const defaultColdFactor = 3

func orDefault(n, def int64) int64 {
	if n == 0 {
		return def
	}
	return n
}

// scanner splits the input into tokens separated by ASCII white space.
type scanner struct {
	s    string
	i    int
	base int // column of s[0] in the whole input
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// next returns the next token and its 0-based column in the whole input,
// or "" and the column just past the end.
func (sc *scanner) next() (string, int) {
	for sc.i < len(sc.s) && isSpace(sc.s[sc.i]) {
		sc.i++
	}
	start := sc.i
	for sc.i < len(sc.s) && !isSpace(sc.s[sc.i]) {
		sc.i++
	}
	return sc.s[start:sc.i], sc.base + start
}

// parseAlgorithm parses s, whose first byte is at column base of the whole
// input; inPolicy says whether ParsePolicy reads it.
func parseAlgorithm(s string, base int, inPolicy bool) (Algorithm, *ParseError) {
	sc := &scanner{s: s, base: base}
	p := &parsed{algCol: -1}
	tok, col := sc.next()
	if tok == "" {
		return nil, syntaxErr(col, "", "empty limit at column %d: want a rate such as 100/min", col+1)
	}
	if err := p.parseRate(tok, col, inPolicy); err != nil {
		return nil, err
	}
	for {
		tok, col := sc.next()
		if tok == "" {
			break
		}
		if err := p.parseWord(sc, tok, col); err != nil {
			return nil, err
		}
	}
	return p.finish()
}

// parseRate parses COUNT/PERIOD.
func (p *parsed) parseRate(tok string, col int, inPolicy bool) *ParseError {
	p.rateCol, p.rateTok = col, tok
	slash := strings.IndexByte(tok, '/')
	if slash < 0 {
		if _, ok := lookupAlg(tok); ok || lookupParam(tok) != nil {
			return syntaxErr(col, tok, "%q at column %d comes before the rate: want the rate first (COUNT/PERIOD such as 100/min), then the words", tok, col+1)
		}
		hint := ""
		switch {
		case strings.HasSuffix(tok, ":"):
			hint = " (a limit's name and ':' are read by ParsePolicy)"
			if inPolicy {
				hint = " (a limit has one name)"
			}
		case inPolicy && validName(tok) && isLetter(tok[0]):
			// "daily 10000/day": a name without its ':'.
			hint = " (a limit's name? follow it with ':', as " + clip(tok) + ": COUNT/PERIOD)"
		}
		return syntaxErr(col, tok, "rate %q at column %d has no '/': want COUNT/PERIOD such as 100/min, without spaces%s", clip(tok), col+1, hint)
	}
	n, err := parseCount(tok[:slash], col, "count", 1)
	if err != nil {
		return err
	}
	d, err := parseDuration(tok[slash+1:], col+slash+1, "period")
	if err != nil {
		return err
	}
	p.count, p.period = n, d
	return nil
}

// parseWord parses an algorithm or parameter word at col, and its argument.
func (p *parsed) parseWord(sc *scanner, w string, col int) *ParseError {
	if a, ok := lookupAlg(w); ok {
		if p.algCol >= 0 {
			return syntaxErr(col, w, "second algorithm %q at column %d: %s already named at column %d", w, col+1, algNames[p.alg], p.algCol+1)
		}
		p.alg, p.algCol, p.algTok = a, col, w
		if a == algWarmUp {
			return p.parseArg(sc, warmUpParam, w, col)
		}
		return nil
	}
	pr := lookupParam(w)
	if pr == nil {
		return p.unknownWord(w, col)
	}
	for _, s := range p.settings {
		if s.p == pr {
			return syntaxErr(col, w, "duplicate %q at column %d: already given at column %d", w, col+1, s.col+1)
		}
	}
	return p.parseArg(sc, pr, w, col)
}

// parseArg reads pr's argument, if it takes one, and records the setting.
func (p *parsed) parseArg(sc *scanner, pr *param, w string, col int) *ParseError {
	s := setting{p: pr, col: col, text: w}
	if pr.arg != argNone {
		arg, acol := sc.next()
		if arg == "" {
			return syntaxErr(col, w, "%q at column %d wants %s after it", w, col+1, argWants[pr.arg])
		}
		s.text = sc.s[col-sc.base : acol-sc.base+len(arg)]
		var err *ParseError
		switch pr.arg {
		case argCount:
			s.n, err = parseCount(arg, acol, w, 1)
		case argCount0:
			s.n, err = parseCount(arg, acol, w, 0)
		case argDuration:
			s.d, err = parseDuration(arg, acol, w)
		case argFactor:
			s.f, err = parseFactor(arg, acol, w)
		}
		if err != nil {
			return err
		}
	}
	p.settings = append(p.settings, s)
	return nil
}

// finish checks that every parameter applies to the algorithm and that the
// required ones are there, then builds and validates the algorithm.
func (p *parsed) finish() (Algorithm, *ParseError) {
	has := map[*param]bool{}
	for i := range p.settings {
		s := &p.settings[i]
		s.p.set(p, s)
		has[s.p] = true
		if s.p == warmUpParam || s.p.appliesTo(p.alg) {
			continue
		}
		which := algNames[p.alg]
		if p.algCol < 0 {
			which += ", the default algorithm"
		}
		return nil, syntaxErr(s.col, s.p.name, "%q at column %d does not apply to %s: it is a parameter of %s",
			s.p.name, s.col+1, which, algList(s.p.algs))
	}
	if p.alg == algRollingWindow && !has[everyParam] {
		return nil, syntaxErr(p.algCol, p.algTok, "%s at column %d needs \"every PERIOD\", the period the window rolls by, such as every 1h",
			p.algTok, p.algCol+1)
	}
	a := p.build()
	if verr := a.Validate(); verr != nil {
		return nil, p.blame(verr)
	}
	return a, nil
}

// blame returns verr positioned at the first token without which the
// algorithm would have been valid: the rate, when the algorithm fails with
// its rate alone (and any required parameter set to a value that cannot
// fail), or else the first parameter whose addition makes it fail.
func (p *parsed) blame(verr error) *ParseError {
	q := &parsed{alg: p.alg, count: p.count, period: p.period, every: p.period, warm: 1}
	col, text := p.rateCol, p.rateTok
	for i := -1; i < len(p.settings); i++ {
		if i >= 0 {
			s := &p.settings[i]
			s.p.set(q, s)
			col, text = s.col, s.text
		}
		if err := q.build().Validate(); err != nil {
			return &ParseError{Column: col + 1, Token: text, Err: err,
				msg: strconv.Quote(clip(text)) + " at column " + strconv.Itoa(col+1)}
		}
	}
	// Unreachable: with every setting applied q is p.
	return &ParseError{Column: p.rateCol + 1, Token: p.rateTok, Err: verr,
		msg: strconv.Quote(clip(p.rateTok)) + " at column " + strconv.Itoa(p.rateCol+1)}
}

// unknownWord reports a word that is neither an algorithm nor a parameter.
func (p *parsed) unknownWord(w string, col int) *ParseError {
	var ps []string
	for _, pr := range params {
		if p.algCol < 0 || pr.appliesTo(p.alg) {
			ps = append(ps, pr.name)
		}
	}
	want := "want an algorithm (" + strings.Join(algNames[:], ", ") + ")"
	switch {
	case len(ps) > 0 && p.algCol >= 0:
		want += " or a parameter of " + algNames[p.alg] + " (" + strings.Join(ps, ", ") + ")"
	case len(ps) > 0:
		want += " or a parameter (" + strings.Join(ps, ", ") + ")"
	}
	cands := append(append([]string{}, algNames[:]...), ps...)
	for a := range algAliases {
		cands = append(cands, a)
	}
	hint := suggest(w, cands)
	switch {
	case strings.IndexByte(w, '/') >= 0:
		hint = " (a second rate: separate limits with ';' in a policy)"
	case w == shadowWord:
		hint = " (shadow comes before the rate, in a policy: shadow 100/min)"
	}
	return syntaxErr(col, w, "unknown word %q at column %d%s: %s", clip(w), col+1, hint, want)
}

func algList(as []algID) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = algNames[a]
	}
	return strings.Join(names, ", ")
}

// isLetter reports whether c is an ASCII letter.
func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
