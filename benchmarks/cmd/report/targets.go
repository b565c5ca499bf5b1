package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/floodgate-go/floodgate/benchmarks/cmd/internal/rounds"
)

// check is one target: floodgate's figure in a group against a peer's (the
// best one when peer is empty), as a ratio, or against a bound of its own.
type check struct {
	label string
	group string
	unit  string
	lower bool    // lower is better
	peer  string  // "" = the best peer
	bound float64 // on the ratio (≤ when lower, ≥ otherwise); on floodgate's own figure when own
	own   bool
	// maxAllocs bounds floodgate's allocs/op in the group (< 0: none).
	maxAllocs float64
}

// worst is a target over several groups: the one where floodgate fares
// worst is shown; it is met when it is met in every group.
type worst struct {
	label  string
	groups []string
	unit   string
	peer   string
	bound  float64 // ≤ bound on the ratio to the peer, or on floodgate's own figure when own
	own    bool
	target string
}

// verdict is a target's row.
type verdict struct {
	label, target string
	us, peer      string // medians, with their unit
	usSpread      string // median (min–max)
	peerSpread    string
	ratio         string // of the medians
	ratioSpread   string // round by round: median (min–max)
	met           string // yes, no, or empty when unknown
	rounds        string // rounds in which it was met, of the rounds compared
}

func unitSuffix(unit string) string {
	switch unit {
	case "ns/op":
		return " ns"
	case "B/key":
		return " B"
	case "decisions/s":
		return "/s"
	case "srv-us/op":
		return " µs"
	case "allocs/op":
		return " allocs"
	}
	return " " + unit
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func meets(v, bound float64, lower bool) bool {
	if lower {
		return v <= bound
	}
	return v >= bound
}

func targetText(c check) string {
	var t string
	switch {
	case c.own:
		t = "≤ " + fmtBound(c.bound) + unitSuffix(c.unit)
	case c.lower:
		t = "≤ " + fmtBound(c.bound) + "×"
	default:
		t = "≥ " + fmtBound(c.bound) + "×"
	}
	if c.peer != "" && !c.own {
		t += " " + display(c.peer)
	}
	switch {
	case c.maxAllocs == 0:
		t += ", 0 allocs"
	case c.maxAllocs == 1:
		t += ", ≤ 1 alloc"
	case c.maxAllocs > 1:
		t += ", ≤ " + fmtBound(c.maxAllocs) + " allocs"
	}
	return t
}

func fmtBound(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// evaluate returns a check's verdict, or false when floodgate or the peer
// did not run in the group.
func (f figures) evaluate(c check) (verdict, bool) {
	v := verdict{label: c.label, target: targetText(c)}
	peer := c.peer
	if peer == "" {
		var ok bool
		if peer, ok = f.best(c.group, c.unit, c.lower); !ok {
			return v, false
		}
	}
	u, uok := f.stat(c.group, us, c.unit)
	p, pok := f.stat(c.group, peer, c.unit)
	if !uok || !pok {
		return v, false
	}
	v.us, v.usSpread = fmtUnit(u.Median, c.unit)+unitSuffix(c.unit), spread(u, c.unit)
	v.peer = display(peer) + " " + fmtUnit(p.Median, c.unit) + unitSuffix(c.unit)
	v.peerSpread = display(peer) + " " + spread(p, c.unit)
	r := u.Median / p.Median
	v.ratio = ratio(r)
	perRound := f.ratios(c.group, peer, c.unit)
	if rs, ok := rounds.Summarize(perRound); ok {
		v.ratioSpread = ratio(rs.Median)
		if rs.N > 1 {
			v.ratioSpread += " (" + ratio(rs.Min) + "–" + ratio(rs.Max) + ")"
		}
	}
	allocsByRound := rounds.ByRound(f.samples(c.group, us, "allocs/op"))
	allocsOK := func(a float64) bool { return c.maxAllocs < 0 || a <= c.maxAllocs }
	met := meets(r, c.bound, c.lower)
	if c.own {
		met = meets(u.Median, c.bound, c.lower)
	}
	if c.maxAllocs >= 0 {
		a, ok := f.median(c.group, us, "allocs/op")
		met = met && ok && allocsOK(a)
		if ok {
			v.us += ", " + fmtUnit(a, "allocs/op") + " allocs"
			v.usSpread += ", " + fmtUnit(a, "allocs/op") + " allocs"
		}
	}
	v.met = yesNo(met)
	usByRound := rounds.ByRound(f.samples(c.group, us, c.unit))
	n, good := 0, 0
	for _, s := range perRound {
		n++
		ok := meets(s.Value, c.bound, c.lower)
		if c.own {
			ok = meets(usByRound[s.Round], c.bound, c.lower)
		}
		if c.maxAllocs >= 0 {
			a, has := allocsByRound[s.Round]
			ok = ok && has && allocsOK(a)
		}
		if ok {
			good++
		}
	}
	v.rounds = fmt.Sprintf("%d/%d", good, n)
	return v, true
}

// evaluateWorst returns the verdict of a target over several groups.
func (f figures) evaluateWorst(w worst) (verdict, bool) {
	v := verdict{label: w.label, target: w.target}
	worstGroup, worstVal := "", math.Inf(-1)
	metAll := true
	byRound := map[int]bool{} // round → met in every group compared
	for _, g := range w.groups {
		u, uok := f.stat(g, us, w.unit)
		p, pok := f.stat(g, w.peer, w.unit)
		if !uok || (!w.own && !pok) {
			continue
		}
		val := u.Median
		if !w.own {
			val = u.Median / p.Median
		}
		metAll = metAll && val <= w.bound
		if val > worstVal {
			worstGroup, worstVal = g, val
			v.us, v.usSpread = fmtUnit(u.Median, w.unit)+unitSuffix(w.unit), spread(u, w.unit)
			v.peer, v.peerSpread = "", ""
			if pok {
				v.peer = display(w.peer) + " " + fmtUnit(p.Median, w.unit) + unitSuffix(w.unit)
				v.peerSpread = display(w.peer) + " " + spread(p, w.unit)
				v.ratio = ratio(u.Median / p.Median)
			}
		}
		per := rounds.ByRound(f.samples(g, us, w.unit))
		if !w.own {
			per = map[int]float64{}
			for _, s := range f.ratios(g, w.peer, w.unit) {
				per[s.Round] = s.Value
			}
		}
		for r, x := range per {
			ok, seen := byRound[r]
			byRound[r] = (ok || !seen) && x <= w.bound
		}
	}
	if worstGroup == "" {
		return v, false
	}
	v.label += " — worst: " + groupLabel(worstGroup)
	v.met = yesNo(metAll)
	good := 0
	for _, ok := range byRound {
		if ok {
			good++
		}
	}
	v.rounds = fmt.Sprintf("%d/%d", good, len(byRound))
	return v, true
}

// evaluateAccuracy compares floodgate's admitted/ideal on the simulated
// clock with the peer closest to 1 (above 1 is over-admission).
func (f figures) evaluateAccuracy(group string) (verdict, bool) {
	v := verdict{label: "accuracy, 100/s burst 100 for 3 s on a simulated clock (admitted ÷ ideal)", target: "exact (1.00)"}
	u, ok := f.stat(group, us, "admitted/ideal")
	if !ok {
		return v, false
	}
	v.us, v.usSpread = num(u.Median), spread(u, "")
	var peer string
	var pv float64
	for _, lib := range f.Libs(group) {
		if isUs(lib) {
			continue
		}
		if m, ok := f.median(group, lib, "admitted/ideal"); ok && (peer == "" || math.Abs(m-1) < math.Abs(pv-1)) {
			peer, pv = lib, m
		}
	}
	if peer != "" {
		v.peer = display(peer) + " " + num(pv)
		v.peerSpread = v.peer
	}
	v.met = yesNo(math.Abs(u.Max-1) < 1e-9 && math.Abs(u.Min-1) < 1e-9)
	good, byRound := 0, rounds.ByRound(f.samples(group, us, "admitted/ideal"))
	for _, x := range byRound {
		if math.Abs(x-1) < 1e-9 {
			good++
		}
	}
	v.rounds = fmt.Sprintf("%d/%d", good, len(byRound))
	return v, true
}

// groupLabel names a Redis group for people: "RedisScale/10k-g8" is
// "10,000 keys, 8 goroutines".
func groupLabel(g string) string {
	_, rest, ok := strings.Cut(g, "/")
	if !ok {
		return g
	}
	shape, gs, ok := strings.Cut(rest, "-g")
	if !ok {
		return rest
	}
	switch shape {
	case "hot":
		shape = "one hot key"
	case "10k":
		shape = "10,000 keys"
	}
	if gs == "1" {
		return shape + ", 1 goroutine"
	}
	return shape + ", " + gs + " goroutines"
}

// verdicts evaluates every target the run has figures for, in the
// README's order.
func (f figures) verdicts() []verdict {
	procs := f.Procs
	if procs == "" {
		procs = "GOMAXPROCS"
	}
	par := procs + " goroutines"
	checks := []check{
		{label: "one hot key, allow, sequential", group: "HotKey/allow-sequential", unit: "ns/op", lower: true, bound: 0.7, maxAllocs: 0},
		{label: "one hot key, allow, " + par, group: "HotKey/allow-parallel", unit: "ns/op", lower: true, bound: 0.7, maxAllocs: 0},
		{label: "one hot key, deny, sequential", group: "HotKey/deny-sequential", unit: "ns/op", lower: true, bound: 0.7, maxAllocs: 0},
		{label: "one hot key, deny, " + par, group: "HotKey/deny-parallel", unit: "ns/op", lower: true, bound: 0.7, maxAllocs: 0},
		{label: "1,000,000 keys, " + par, group: "ManyKeys/parallel", unit: "ns/op", lower: true, bound: 0.5, maxAllocs: -1},
		{label: "heap kept per key at 1M keys", group: "HeapPerKey", unit: "B/key", lower: true, bound: 24, own: true, maxAllocs: -1},
		{label: "middleware overhead, every header on", group: "Middleware/allow-parallel", unit: "ns/op", lower: true, bound: 0.5, maxAllocs: 1},
	}
	for _, shape := range []string{"hot", "10k"} {
		for _, g := range []string{"1", "8", "64"} {
			group := "RedisScale/" + shape + "-g" + g
			bound := 1.2
			if g == "64" {
				bound = 2
			}
			checks = append(checks, check{label: "Redis, " + groupLabel(group) + " (decisions/s)", group: group,
				unit: "decisions/s", peer: "ulule", bound: bound, maxAllocs: -1})
		}
	}
	var out []verdict
	for _, c := range checks {
		if v, ok := f.evaluate(c); ok {
			out = append(out, v)
		}
	}
	var srv, allocs []string
	for _, shape := range []string{"hot", "10k"} {
		for _, g := range []string{"1", "8", "64"} {
			srv = append(srv, "RedisScale/"+shape+"-g"+g)
			if g != "64" {
				allocs = append(allocs, "RedisScale/"+shape+"-g"+g)
			}
		}
	}
	for _, w := range []worst{
		{label: "Redis server time per decision (INFO commandstats)", groups: srv, unit: "srv-us/op", peer: "ulule",
			bound: 1, target: "≤ 1× ulule"},
		{label: "Redis client allocations per decision (1 and 8 goroutines)", groups: allocs, unit: "allocs/op", peer: "ulule",
			bound: 16, own: true, target: "≤ 16"},
	} {
		if v, ok := f.evaluateWorst(w); ok {
			out = append(out, v)
		}
	}
	if v, ok := f.evaluateAccuracy("Accuracy/sim"); ok {
		out = append(out, v)
	}
	return out
}
