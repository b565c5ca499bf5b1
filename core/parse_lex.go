package core

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// unitDay is the day of the rate syntax: 24 hours.
const unitDay = 24 * time.Hour

// units are the duration units of the rate syntax.
var units = map[string]time.Duration{
	"ns": time.Nanosecond,
	"us": time.Microsecond, "µs": time.Microsecond, "μs": time.Microsecond,
	"ms": time.Millisecond,
	"s":  time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": unitDay, "day": unitDay, "days": unitDay,
	"w": 7 * unitDay, "week": 7 * unitDay, "weeks": 7 * unitDay,
}

// unitList is the list of units an error names.
const unitList = "ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week"

// irregular are units refused because their length varies.
var irregular = map[string]bool{
	"mo": true, "month": true, "months": true, "y": true, "yr": true, "year": true, "years": true,
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// parseCount parses tok, at the 0-based column col, as a whole number ≥
// least; what names it in errors ("count", "burst", …).
func parseCount(tok string, col int, what string, least int64) (int64, *ParseError) {
	if tok == "" {
		return 0, syntaxErr(col, tok, "missing %s at column %d: want a whole number ≥ %d before '/', as in 100/min", what, col+1, least)
	}
	if !allDigits(tok) {
		hint := ""
		if what == "count" && strings.IndexByte(tok, '.') >= 0 {
			if f, err := strconv.ParseFloat(tok, 64); err == nil && f > 0 && f != math.Trunc(f) {
				hint = " (counts are whole: scale the period instead, as 3/2s for 1.5/s)"
			}
		}
		return 0, syntaxErr(col, tok, "%s %q at column %d: want a whole number ≥ %d%s", what, clip(tok), col+1, least, hint)
	}
	n, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		return 0, syntaxErr(col, tok, "%s %q at column %d is too large: want at most %d", what, clip(tok), col+1, int64(math.MaxInt64))
	}
	if n < least {
		hint := ""
		if what != "count" {
			hint = " (leave " + what + " out for its default)"
		}
		return 0, syntaxErr(col, tok, "%s %q at column %d: want a whole number ≥ %d%s", what, tok, col+1, least, hint)
	}
	return n, nil
}

// parseFactor parses tok, at the 0-based column col, as a decimal number
// > 0 (without sign or exponent).
func parseFactor(tok string, col int, what string) (float64, *ParseError) {
	intPart, frac, dot := tok, "", false
	for i := 0; i < len(tok); i++ {
		if tok[i] == '.' {
			intPart, frac, dot = tok[:i], tok[i+1:], true
			break
		}
	}
	if !allDigits(intPart) || (dot && !allDigits(frac)) {
		return 0, syntaxErr(col, tok, "%s %q at column %d: want %s", what, clip(tok), col+1, argWants[argFactor])
	}
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, syntaxErr(col, tok, "%s %q at column %d is too large: want %s", what, clip(tok), col+1, argWants[argFactor])
	}
	if f == 0 {
		return 0, syntaxErr(col, tok, "%s %q at column %d: want %s (leave %s out for its default)", what, clip(tok), col+1, argWants[argFactor], what)
	}
	return f, nil
}

// parseDuration parses tok, at the 0-based column col, as a duration in
// (0, 2^60 ns]: a unit alone (1 of it), or one or more segments of a
// decimal number and a unit, in decreasing units ("90s", "1.5h", "1h30m").
// The value must be a whole number of nanoseconds.
func parseDuration(tok string, col int, what string) (time.Duration, *ParseError) {
	if tok == "" {
		return 0, syntaxErr(col, tok, "missing %s at column %d: want a unit such as s, min, h or day, or a number and a unit such as 15m", what, col+1)
	}
	var total int64
	var prev time.Duration
	for i := 0; i < len(tok); {
		seg := i
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
		intPart, frac := tok[seg:i], ""
		if i < len(tok) && tok[i] == '.' {
			i++
			f := i
			for i < len(tok) && isDigit(tok[i]) {
				i++
			}
			frac = tok[f:i]
			if intPart == "" || frac == "" {
				return 0, syntaxErr(col+seg, tok[seg:i], "number %q at column %d in %s %q: want digits on both sides of '.'", tok[seg:i], col+seg+1, what, clip(tok))
			}
		}
		u := i
		for i < len(tok) && !isDigit(tok[i]) && tok[i] != '.' {
			i++
		}
		name := tok[u:i]
		if name == "" {
			return 0, syntaxErr(col, tok, "%s %q at column %d: want a unit after %q (%s)", what, clip(tok), col+1, tok[seg:u], unitList)
		}
		unit, ok := units[name]
		if !ok {
			if irregular[name] {
				return 0, syntaxErr(col+u, name, "unit %q at column %d: months and years vary in length: use days, as 30d or 365d", name, col+u+1)
			}
			cands := make([]string, 0, len(units))
			for n := range units {
				cands = append(cands, n)
			}
			hint := suggest(name, cands)
			if strings.ContainsAny(name, ",;") {
				hint = " (separate limits with ';' in a policy, and words with spaces)"
			}
			if hint == "" && intPart == "" {
				return 0, syntaxErr(col, tok, "%s %q at column %d: want a duration: a number and a unit such as 30s or 1h, or a unit alone", what, clip(tok), col+1)
			}
			return 0, syntaxErr(col+u, name, "unknown unit %q at column %d%s: want %s", clip(name), col+u+1, hint, unitList)
		}
		if intPart == "" {
			if seg != 0 || i != len(tok) {
				return 0, syntaxErr(col+seg, name, "unit %q at column %d in %s %q: want a number before it", name, col+seg+1, what, clip(tok))
			}
			return unit, nil
		}
		if prev != 0 && unit >= prev {
			return 0, syntaxErr(col, tok, "%s %q at column %d: want units in decreasing order, as in 1h30m", what, clip(tok), col+1)
		}
		prev = unit
		v, ok := segment(intPart, frac, int64(unit))
		if !ok {
			return 0, syntaxErr(col+seg, tok[seg:i], "%q at column %d is not a whole number of nanoseconds", tok[seg:i], col+seg+1)
		}
		if v < 0 || v > maxSpan-total {
			return 0, syntaxErr(col, tok, "%s %q at column %d is longer than 2^60 ns (about 36 years)", what, clip(tok), col+1)
		}
		total += v
	}
	if total == 0 {
		return 0, syntaxErr(col, tok, "%s %q at column %d: want a duration > 0", what, clip(tok), col+1)
	}
	return time.Duration(total), nil
}

// segment returns intPart.frac units in nanoseconds, -1 when it exceeds
// maxSpan, and false when it is not a whole number of nanoseconds.
func segment(intPart, frac string, unit int64) (int64, bool) {
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || n > maxSpan/unit {
		return -1, true
	}
	v := n * unit
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if frac == "" {
		return v, true
	}
	// frac/10^k·unit is whole only if 10^k/gcd(10^k, unit) divides frac;
	// unit < 10^15 has at most 15 factors 2 or 5, so k ≤ 16 for a frac
	// that does not end in 0.
	if len(frac) > 16 {
		return 0, false
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	p := int64(1)
	for range len(frac) {
		p *= 10
	}
	g := gcd(p, unit)
	den := p / g
	if f%den != 0 {
		return 0, false
	}
	// f/den < g, so (f/den)·(unit/g) < unit: no overflow.
	return v + f/den*(unit/g), true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
