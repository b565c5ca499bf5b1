package core

import (
	"strconv"
	"strings"
	"time"
)

// The String methods write algorithms in the canonical form of the rate
// syntax (see "Rate syntax" in the package documentation): the rate, the
// algorithm's name unless it is GCRA, and each parameter that differs from
// its default, in a fixed order. For a valid value a, ParseAlgorithm(
// a.String()) returns a with its defaults filled in.

// String formats r in the rate syntax, as "100/min", "10/s", "5/15m" or
// "1/1500ms".
func (r Rate) String() string { return string(appendRate(nil, r.Count, r.Period)) }

// String formats g in the rate syntax, as "10/s burst 20".
func (g GCRA) String() string {
	d := g.WithDefaults()
	b := appendRate(nil, d.Rate.Count, d.Rate.Period)
	return string(appendCount(b, "burst", d.Burst, d.Rate.Count))
}

// String formats b in the rate syntax, as "10/s token-bucket burst 20".
func (b TokenBucket) String() string {
	d := b.WithDefaults()
	s := appendAlg(nil, d.Rate.Count, d.Rate.Period, algTokenBucket)
	return string(appendCount(s, "burst", d.Burst, d.Rate.Count))
}

// String formats b in the rate syntax, as "10/s leaky-bucket burst 20
// no-delay 5" (burst is the Capacity).
func (b LeakyBucket) String() string {
	d := b.WithDefaults()
	s := appendAlg(nil, d.Rate.Count, d.Rate.Period, algLeakyBucket)
	s = appendCount(s, "burst", d.Capacity, d.Rate.Count)
	return string(appendCount(s, "no-delay", d.NoDelay, 0))
}

// String formats f in the rate syntax, as "1000/day fixed-window anchored".
func (f FixedWindow) String() string {
	s := appendAlg(nil, f.Quota, f.Window, algFixedWindow)
	return string(appendFlag(s, "anchored", f.Anchored))
}

// String formats s in the rate syntax, as "100/min sliding-window".
func (s SlidingWindow) String() string {
	return string(appendAlg(nil, s.Quota, s.Window, algSlidingWindow))
}

// String formats s in the rate syntax, as "5/min sliding-log
// count-rejected".
func (s SlidingLog) String() string {
	b := appendAlg(nil, s.Quota, s.Window, algSlidingLog)
	return string(appendFlag(b, "count-rejected", s.CountRejected))
}

// String formats h in the rate syntax, as "100/min hybrid".
func (h Hybrid) String() string {
	return string(appendAlg(nil, h.Quota, h.Window, algHybrid))
}

// String formats r in the rate syntax, as "10000/day rolling-window every
// 1h cap 1000".
func (r RollingWindow) String() string {
	b := appendAlg(nil, r.Quota, r.Window, algRollingWindow)
	b = appendDurationWord(b, "every", r.Period)
	return string(appendCount(b, "cap", orDefault(r.PeriodCap, r.Quota), r.Quota))
}

// String formats w in the rate syntax, as "10/s warm-up 30s cold 4".
func (w WarmUp) String() string {
	b := appendAlg(nil, w.Rate.Count, w.Rate.Period, algWarmUp)
	b = append(b, ' ')
	b = appendDuration(b, w.WarmUp)
	if cf := w.ColdFactor; cf != 0 && cf != defaultColdFactor {
		b = append(b, " cold "...)
		b = strconv.AppendFloat(b, cf, 'f', -1, 64)
	}
	return string(b)
}

// String formats b in the rate syntax, as "5/15m backoff base 1m max
// 1h".
func (b Backoff) String() string {
	d := b.WithDefaults()
	s := appendAlg(nil, d.Free, d.Window, algBackoff)
	def := Backoff{Base: d.Base}.WithDefaults()
	if d.Base != time.Second {
		s = appendDurationWord(s, "base", d.Base)
	}
	if d.Max != def.Max {
		s = appendDurationWord(s, "max", d.Max)
	}
	if d.Forgive != (Backoff{Max: d.Max}).WithDefaults().Forgive {
		s = appendDurationWord(s, "forgive", d.Forgive)
	}
	return string(s)
}

// String formats p's limits in the syntax [ParsePolicy] reads, as
// "burst: 10/s burst 20; daily: 10000/day fixed-window", the enforced
// limits first, then the shadow ones ("daily: shadow 10000/day"). A name
// is left out where ParsePolicy would give the limit that name anyway, so
// ParsePolicy(p.Name(), p.String()) returns a policy equal to p (its
// algorithms with their defaults filled in).
func (p *Policy) String() string {
	if p == nil {
		return "<nil>"
	}
	var b strings.Builder
	all := p.AllLimits()
	for i, l := range all {
		if i > 0 {
			b.WriteString("; ")
		}
		if l.Name != defaultName(p.name, len(all), l.Algorithm) {
			if validName(l.Name) {
				b.WriteString(l.Name)
			} else {
				b.WriteString(strconv.Quote(l.Name))
			}
			b.WriteString(": ")
		}
		if l.Shadow {
			b.WriteString("shadow ")
		}
		b.WriteString(l.Algorithm.String())
	}
	return b.String()
}

// periodUnits are the units String writes, largest first: a period is
// written in the largest unit it is a whole number of.
var periodUnits = [...]struct {
	d          time.Duration
	one, short string
}{
	{unitDay, "day", "d"},
	{time.Hour, "hour", "h"},
	{time.Minute, "min", "m"},
	{time.Second, "s", "s"},
	{time.Millisecond, "ms", "ms"},
	{time.Microsecond, "us", "us"},
	{time.Nanosecond, "ns", "ns"},
}

func appendRate(b []byte, n int64, period time.Duration) []byte {
	b = strconv.AppendInt(b, n, 10)
	b = append(b, '/')
	if period <= 0 {
		return append(b, period.String()...)
	}
	for _, u := range periodUnits {
		if period%u.d == 0 {
			if period == u.d {
				return append(b, u.one...)
			}
			return append(strconv.AppendInt(b, int64(period/u.d), 10), u.short...)
		}
	}
	return b // unreachable: every period is a whole number of ns
}

// appendDuration writes d as a number and a unit, as "30s" or "1500ms".
func appendDuration(b []byte, d time.Duration) []byte {
	if d <= 0 {
		return append(b, d.String()...)
	}
	for _, u := range periodUnits {
		if d%u.d == 0 {
			return append(strconv.AppendInt(b, int64(d/u.d), 10), u.short...)
		}
	}
	return b
}

func appendAlg(b []byte, n int64, period time.Duration, a algID) []byte {
	b = appendRate(b, n, period)
	b = append(b, ' ')
	return append(b, algNames[a]...)
}

// appendCount writes " word n" unless n is def.
func appendCount(b []byte, word string, n, def int64) []byte {
	if n == def {
		return b
	}
	b = append(append(append(b, ' '), word...), ' ')
	return strconv.AppendInt(b, n, 10)
}

func appendFlag(b []byte, word string, on bool) []byte {
	if !on {
		return b
	}
	return append(append(b, ' '), word...)
}

func appendDurationWord(b []byte, word string, d time.Duration) []byte {
	b = append(append(append(b, ' '), word...), ' ')
	return appendDuration(b, d)
}
