// Command report turns `go test -bench` output (raw, any -count) into the
// markdown of RESULTS.md: the median of every metric per benchmark, a
// summary against floodgate's targets, and one table per scenario with the
// floodgate ÷ library ratios.
//
//	go run ./cmd/report -date 2026-01-02 -cmd './run.sh' raw.txt > RESULTS.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

const us = "floodgate"

type bench struct {
	group, lib string
	samples    map[string][]float64 // unit → values
}

func (b *bench) median(unit string) (float64, bool) {
	v := b.samples[unit]
	if len(v) == 0 {
		return 0, false
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2], true
	} else {
		return (s[n/2-1] + s[n/2]) / 2, true
	}
}

type results struct {
	header  map[string]string // goos, goarch, cpu, pkg
	procs   string
	order   []string // group order
	benches map[string]map[string]*bench
	libs    map[string][]string // group → libraries in order
	counts  map[string]int
}

var procsSuffix = regexp.MustCompile(`-(\d+)$`)

func parse(r io.Reader, res *results) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for _, h := range []string{"goos", "goarch", "cpu", "pkg"} {
			if v, ok := strings.CutPrefix(line, h+": "); ok {
				res.header[h] = v
			}
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if m := procsSuffix.FindStringSubmatch(name); m != nil {
			res.procs = m[1]
			name = strings.TrimSuffix(name, m[0])
		}
		i := strings.LastIndex(name, "/")
		if i < 0 {
			continue
		}
		group, lib := name[:i], name[i+1:]
		if res.benches[group] == nil {
			res.benches[group] = map[string]*bench{}
			res.order = append(res.order, group)
		}
		b := res.benches[group][lib]
		if b == nil {
			b = &bench{group: group, lib: lib, samples: map[string][]float64{}}
			res.benches[group][lib] = b
			res.libs[group] = append(res.libs[group], lib)
		}
		res.counts[name]++
		for j := 2; j+1 < len(f); j += 2 {
			v, err := strconv.ParseFloat(f[j], 64)
			if err != nil {
				continue
			}
			b.samples[f[j+1]] = append(b.samples[f[j+1]], v)
		}
	}
	return sc.Err()
}

// primary is the unit a group is compared on, and whether lower is better.
func primary(group string) (unit string, lower bool) {
	switch {
	case strings.HasPrefix(group, "HeapPerKey"):
		return "B/key", true
	case strings.HasPrefix(group, "Accuracy"):
		return "admitted/ideal", false
	default:
		return "ns/op", true
	}
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case v == 0:
		return "0"
	case a >= 1e6:
		return strconv.FormatFloat(v, 'f', 0, 64)
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

func ratio(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "×" }

// value is the compared figure of a library in a group: for the middleware,
// the overhead over bare.
func value(res *results, group, lib string) (float64, bool) {
	unit, _ := primary(group)
	b := res.benches[group][lib]
	if b == nil {
		return 0, false
	}
	v, ok := b.median(unit)
	if ok && strings.HasPrefix(group, "Middleware") {
		if bare := res.benches[group]["bare"]; bare != nil {
			bv, _ := bare.median(unit)
			v -= bv
		}
	}
	return v, ok
}

// best returns the best peer of a group (floodgate variants and bare left
// out).
func best(res *results, group string) (string, float64, bool) {
	_, lower := primary(group)
	var name string
	var bv float64
	for _, lib := range res.libs[group] {
		if strings.HasPrefix(lib, us) || lib == "bare" {
			continue
		}
		v, ok := value(res, group, lib)
		if !ok {
			continue
		}
		if name == "" || (lower && v < bv) || (!lower && v > bv) {
			name, bv = lib, v
		}
	}
	return name, bv, name != ""
}

type target struct {
	label, group string
	check        func(us, peer float64) (shown string, met bool)
	want         string
}

var targets = []target{
	{"hot key, allow, parallel (ns/op)", "HotKey/allow-parallel", func(u, p float64) (string, bool) { return ratio(u / p), u/p <= 0.5 }, "≤ 0.5×"},
	{"hot key, deny, parallel (ns/op)", "HotKey/deny-parallel", func(u, p float64) (string, bool) { return ratio(u / p), u/p <= 0.5 }, "≤ 0.5×"},
	{"1M keys, parallel (ns/op)", "ManyKeys/parallel", func(u, p float64) (string, bool) { return ratio(u / p), u/p <= 0.5 }, "≤ 0.5×"},
	{"heap per key at 1M keys (B/key)", "HeapPerKey", func(u, p float64) (string, bool) { return ratio(u / p), u <= 32 }, "≤ 32 B/key"},
	{"middleware overhead, all headers (ns/op over bare)", "Middleware/allow-parallel", func(u, p float64) (string, bool) { return ratio(u / p), u/p <= 0.5 }, "≤ 0.5×"},
	{"Redis, 64 goroutines (ns/op; ratio in decisions/s)", "Redis/allow-g64", func(u, p float64) (string, bool) { return ratio(p / u), p/u >= 2 }, "≥ 2×"},
}

func main() {
	date := flag.String("date", "", "date of the run")
	cmd := flag.String("cmd", "./run.sh", "command that produced the input")
	goVersion := flag.String("go", "", "go version")
	note := flag.String("note", "", "a line to add under the machine (e.g. provisional)")
	flag.Parse()
	res := &results{header: map[string]string{}, benches: map[string]map[string]*bench{},
		libs: map[string][]string{}, counts: map[string]int{}}
	if flag.NArg() == 0 {
		must(parse(os.Stdin, res))
	}
	for _, p := range flag.Args() {
		f, err := os.Open(p)
		must(err)
		must(parse(f, res))
		f.Close()
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	minC, maxC := math.MaxInt, 0
	for _, c := range res.counts {
		minC, maxC = min(minC, c), max(maxC, c)
	}
	fmt.Fprintf(w, "# floodgate and its peers: benchmarks\n\n")
	fmt.Fprintf(w, "- machine: %s, %s/%s, GOMAXPROCS %s\n", res.header["cpu"], res.header["goos"], res.header["goarch"], res.procs)
	if *goVersion != "" {
		fmt.Fprintf(w, "- Go: %s\n", *goVersion)
	}
	if *date != "" {
		fmt.Fprintf(w, "- date: %s\n", *date)
	}
	if minC == maxC {
		fmt.Fprintf(w, "- runs per benchmark: %d; every figure is the median of its runs\n", minC)
	} else {
		fmt.Fprintf(w, "- runs per benchmark: %d–%d; every figure is the median of its runs\n", minC, maxC)
	}
	fmt.Fprintf(w, "- reproduce: `cd benchmarks && %s`\n", *cmd)
	if *note != "" {
		fmt.Fprintf(w, "- note: %s\n", *note)
	}
	fmt.Fprintf(w, "\nRatios are floodgate ÷ library on the scenario's figure (below 1× floodgate is faster or smaller), except for Redis, where the summary gives floodgate's decisions/s ÷ the best peer's.\n")

	fmt.Fprint(w, scenarios)
	fmt.Fprintf(w, "\n## Against the targets\n\n| scenario | floodgate | best peer | ratio | target | met |\n|---|---:|---|---:|---|---|\n")
	for _, t := range targets {
		if res.benches[t.group] == nil {
			continue
		}
		u, uok := value(res, t.group, us)
		name, p, pok := best(res, t.group)
		switch {
		case !uok:
			fmt.Fprintf(w, "| %s | not run | %s %s | | %s | |\n", t.label, name, num(p), t.want)
		case !pok:
			fmt.Fprintf(w, "| %s | %s | none | | %s | |\n", t.label, num(u), t.want)
		default:
			shown, met := t.check(u, p)
			m := "no"
			if met {
				m = "yes"
			}
			fmt.Fprintf(w, "| %s | %s | %s %s | %s | %s | %s |\n", t.label, num(u), name, num(p), shown, t.want, m)
		}
	}

	for _, g := range res.order {
		unit, _ := primary(g)
		// Units in a stable order: ns/op first, then B/op, allocs/op, the rest.
		seen := map[string]bool{}
		var units []string
		for _, u := range []string{"ns/op", "B/op", "allocs/op"} {
			for _, lib := range res.libs[g] {
				if _, ok := res.benches[g][lib].samples[u]; ok && !seen[u] {
					seen[u] = true
					units = append(units, u)
				}
			}
		}
		var extra []string
		for _, lib := range res.libs[g] {
			for u := range res.benches[g][lib].samples {
				if !seen[u] {
					seen[u] = true
					extra = append(extra, u)
				}
			}
		}
		sort.Strings(extra)
		units = append(units, extra...)
		if strings.HasPrefix(g, "HeapPerKey") || strings.HasPrefix(g, "Accuracy") {
			// Their ns/op, B/op and allocs/op cover the whole setup (key
			// strings, 3 s of hammering): not figures of the library.
			units = slices.DeleteFunc(units, func(u string) bool { return u == "ns/op" || u == "B/op" || u == "allocs/op" })
		}
		fmt.Fprintf(w, "\n## %s\n\n| library |", g)
		for _, u := range units {
			fmt.Fprintf(w, " %s |", u)
		}
		mw := strings.HasPrefix(g, "Middleware")
		if mw {
			fmt.Fprintf(w, " overhead ns/op |")
		}
		acc := strings.HasPrefix(g, "Accuracy")
		if !acc {
			fmt.Fprintf(w, " floodgate ÷ this (%s) |", map[bool]string{true: "overhead", false: unit}[mw])
		}
		fmt.Fprintf(w, "\n|---|")
		for range units {
			fmt.Fprintf(w, "---:|")
		}
		if mw {
			fmt.Fprintf(w, "---:|")
		}
		if !acc {
			fmt.Fprintf(w, "---:|")
		}
		fmt.Fprintln(w)
		uv, uok := value(res, g, us)
		for _, lib := range res.libs[g] {
			b := res.benches[g][lib]
			fmt.Fprintf(w, "| %s |", lib)
			for _, u := range units {
				if v, ok := b.median(u); ok {
					fmt.Fprintf(w, " %s |", num(v))
				} else {
					fmt.Fprintf(w, " |")
				}
			}
			v, _ := value(res, g, lib)
			if mw {
				if lib == "bare" {
					fmt.Fprintf(w, " |")
				} else {
					fmt.Fprintf(w, " %s |", num(v))
				}
			}
			if !acc {
				if uok && v > 0 && lib != "bare" {
					fmt.Fprintf(w, " %s |", ratio(uv/v))
				} else {
					fmt.Fprintf(w, " |")
				}
			}
			fmt.Fprintln(w)
		}
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

const scenarios = `
Scenarios (the code says exactly what each measures; see the _test.go files):

- **HotKey**: one key decided over and over, allow path (1/s, burst 1e9: never denies) or deny path (1/day, burst 1, spent before the timer), from one goroutine or GOMAXPROCS; the limiter is built once.
- **ManyKeys**: 1,000,000 existing keys (inserted before the timer; 1 per 10 min, burst 1e6) decided from GOMAXPROCS goroutines.
- **HeapPerKey**: HeapAlloc after GC, after inserting 1,000,000 freshly built key strings into a new limiter, minus HeapAlloc after GC before, per key.
- **Middleware**: ServeHTTP called directly from GOMAXPROCS goroutines, 768 client IPs (RemoteAddr), allow path, every header the library writes on; overhead = ns/op − bare's.
- **Redis**: a local redis-server, exactly 1, 8 or 64 goroutines over 1,024 keys, allow path; cmds/op and trips/op are what the client sent per decision, srvcmds/op what the server processed (Lua-internal calls included).
- **Accuracy**: one key hammered for 3 s at 100/s burst 100; sim = on the library's own clock (10 calls per 100 µs), real = in real time.

floodgate is its GCRA over the MemoryStore (floodgate-tb: its TokenBucket); the best peer leaves both out.
`
