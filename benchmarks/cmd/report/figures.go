package main

import (
	"math"
	"strconv"
	"strings"

	"github.com/floodgate-go/floodgate/benchmarks/cmd/internal/rounds"
)

const us = "floodgate"

// figures reads the figures of a run the way the tables compare them.
type figures struct{ *rounds.Run }

// primary is the unit a group is compared on, and whether lower is better.
func primary(group string) (unit string, lower bool) {
	switch {
	case strings.HasPrefix(group, "HeapPerKey"):
		return "B/key", true
	case strings.HasPrefix(group, "Accuracy"):
		return "admitted/ideal", false
	case strings.HasPrefix(group, "Redis"):
		return "decisions/s", false
	default:
		return "ns/op", true
	}
}

// samples returns a library's figures in a group; in the middleware
// groups, ns/op is the overhead over bare, round by round.
func (f figures) samples(group, lib, unit string) []rounds.Sample {
	s := f.Samples(group, lib, unit)
	if !strings.HasPrefix(group, "Middleware") || unit != "ns/op" || lib == "bare" {
		return s
	}
	bare := rounds.ByRound(f.Samples(group, "bare", unit))
	if len(bare) == 0 {
		return s
	}
	var out []rounds.Sample
	for r, v := range rounds.ByRound(s) {
		if b, ok := bare[r]; ok {
			out = append(out, rounds.Sample{Round: r, Value: v - b})
		}
	}
	return out
}

func (f figures) stat(group, lib, unit string) (rounds.Stat, bool) {
	return rounds.Summarize(f.samples(group, lib, unit))
}

func (f figures) median(group, lib, unit string) (float64, bool) {
	s, ok := f.stat(group, lib, unit)
	return s.Median, ok
}

// isUs says whether a library is one of floodgate's (left out of "best
// peer"); bare is no library.
func isUs(lib string) bool { return lib == us || strings.HasPrefix(lib, us+"-") || lib == "bare" }

// best returns the peer with the best median in a group's unit.
func (f figures) best(group, unit string, lower bool) (string, bool) {
	var name string
	var bv float64
	for _, lib := range f.Libs(group) {
		if isUs(lib) {
			continue
		}
		v, ok := f.median(group, lib, unit)
		if !ok {
			continue
		}
		if name == "" || (lower && v < bv) || (!lower && v > bv) {
			name, bv = lib, v
		}
	}
	return name, name != ""
}

// ratios returns floodgate's figure ÷ the peer's, round by round, for the
// rounds both ran.
func (f figures) ratios(group, peer, unit string) []rounds.Sample {
	u := rounds.ByRound(f.samples(group, us, unit))
	p := rounds.ByRound(f.samples(group, peer, unit))
	var out []rounds.Sample
	for r, v := range u {
		if pv, ok := p[r]; ok && pv != 0 {
			out = append(out, rounds.Sample{Round: r, Value: v / pv})
		}
	}
	return out
}

func display(lib string) string { return rounds.Display(lib) }

// num formats a figure with 3 significant digits at most (integers whole).
func num(v float64) string {
	switch a := math.Abs(v); {
	case v == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// thousands formats a rate as a whole number with thousands separators.
func thousands(v float64) string {
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// fmtUnit formats a figure for its unit: rates with thousands separators,
// counts whole when they are.
func fmtUnit(v float64, unit string) string {
	switch {
	case unit == "decisions/s":
		return thousands(v)
	case (unit == "allocs/op" || unit == "B/op") && v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return num(v)
}

// spread formats a Stat as "median (min–max)", or the median alone when
// there is one figure or they all agree.
func spread(s rounds.Stat, unit string) string {
	if s.N < 2 || s.Min == s.Max {
		return fmtUnit(s.Median, unit)
	}
	return fmtUnit(s.Median, unit) + " (" + fmtUnit(s.Min, unit) + "–" + fmtUnit(s.Max, unit) + ")"
}

func ratio(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "×" }
