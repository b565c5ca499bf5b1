// Package rounds reads what run.sh writes to results/raw.txt: the output of
// one `go test -bench` invocation per library per scenario per round, each
// preceded by a "# round N" line, after the run's configuration lines
// ("key: value", as `go test` writes goos and cpu), with the "--- SKIP" and
// "--- FAIL" reports of benchmarks that did not run.
package rounds

import (
	"bufio"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Sample is one figure of one benchmark run, in the round it ran.
type Sample struct {
	Round int
	Value float64
}

// Note is a benchmark that was skipped or failed, and the first line of
// what it said.
type Note struct {
	Group, Lib, Text string
}

// Run is everything read from a raw file.
type Run struct {
	// Config holds the first value of every configuration line.
	Config map[string]string
	// Procs is GOMAXPROCS, the suffix `go test` gives benchmark names.
	Procs string
	// Groups lists the benchmark groups (the name without "Benchmark" and
	// without its last element, the library) in the order first seen.
	Groups []string
	// Rounds lists the rounds seen, ascending.
	Rounds       []int
	Skips, Fails []Note

	libs    map[string][]string
	samples map[key][]Sample
	units   map[[2]string][]string
}

type key struct{ group, lib, unit string }

var (
	configLine  = regexp.MustCompile(`^([a-z][a-zA-Z0-9_-]*): *(.*)$`)
	roundLine   = regexp.MustCompile(`^# round (\d+)\b`)
	procsSuffix = regexp.MustCompile(`-(\d+)$`)
)

// split turns "BenchmarkHotKey/allow-sequential/floodgate-2" into its group
// ("HotKey/allow-sequential"), library ("floodgate") and GOMAXPROCS ("2").
func split(name string) (group, lib, procs string, ok bool) {
	name = strings.TrimPrefix(name, "Benchmark")
	if m := procsSuffix.FindStringSubmatch(name); m != nil {
		procs = m[1]
		name = strings.TrimSuffix(name, m[0])
	}
	i := strings.LastIndex(name, "/")
	if i < 0 {
		return "", "", "", false
	}
	return name[:i], name[i+1:], procs, true
}

// Parse reads a raw file.
func Parse(r io.Reader) (*Run, error) {
	run := &Run{Config: map[string]string{}, libs: map[string][]string{},
		samples: map[key][]Sample{}, units: map[[2]string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	round := 0
	var pending *[]Note // a SKIP or FAIL waiting for its first indented line
	for sc.Scan() {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if pending != nil && strings.HasPrefix(raw, "    ") && line != "" {
			n := &(*pending)[len(*pending)-1]
			if n.Text == "" {
				n.Text = line
			}
			continue
		}
		pending = nil
		switch {
		case roundLine.MatchString(line):
			round, _ = strconv.Atoi(roundLine.FindStringSubmatch(line)[1])
			if !slices.Contains(run.Rounds, round) {
				run.Rounds = append(run.Rounds, round)
				slices.Sort(run.Rounds)
			}
		case strings.HasPrefix(line, "--- SKIP: "), strings.HasPrefix(line, "--- FAIL: "):
			f := strings.Fields(line)
			if len(f) < 3 {
				continue
			}
			group, lib, _, ok := split(f[2])
			if !ok {
				continue
			}
			pending = &run.Skips
			if f[1] == "FAIL:" {
				pending = &run.Fails
			}
			*pending = append(*pending, Note{Group: group, Lib: lib})
		case strings.HasPrefix(line, "Benchmark"):
			run.benchLine(line, round)
		case configLine.MatchString(raw):
			m := configLine.FindStringSubmatch(raw)
			if _, seen := run.Config[m[1]]; !seen {
				run.Config[m[1]] = strings.TrimSpace(m[2])
			}
		}
	}
	return run, sc.Err()
}

func (run *Run) benchLine(line string, round int) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 {
		return
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return
	}
	group, lib, procs, ok := split(f[0])
	if !ok {
		return
	}
	if procs != "" {
		run.Procs = procs
	}
	for j := 2; j+1 < len(f); j += 2 {
		v, err := strconv.ParseFloat(f[j], 64)
		if err != nil || math.IsNaN(v) {
			continue
		}
		if _, seen := run.libs[group]; !seen {
			run.Groups = append(run.Groups, group)
		}
		if !slices.Contains(run.libs[group], lib) {
			run.libs[group] = append(run.libs[group], lib)
		}
		k := key{group, lib, f[j+1]}
		if _, seen := run.samples[k]; !seen {
			gl := [2]string{group, lib}
			run.units[gl] = append(run.units[gl], f[j+1])
		}
		run.samples[k] = append(run.samples[k], Sample{round, v})
	}
}

// Libs returns the libraries of a group in the order first seen.
func (run *Run) Libs(group string) []string { return run.libs[group] }

// Units returns the units a library reported in a group, in the order
// first seen.
func (run *Run) Units(group, lib string) []string { return run.units[[2]string{group, lib}] }

// Samples returns every figure of a library in a group in one unit.
func (run *Run) Samples(group, lib, unit string) []Sample {
	return run.samples[key{group, lib, unit}]
}

// Skipped returns the note of a library skipped in a group, if it was.
func (run *Run) Skipped(group, lib string) (Note, bool) {
	for _, n := range run.Skips {
		if n.Group == group && n.Lib == lib {
			return n, true
		}
	}
	return Note{}, false
}

// Stat is the median and the range of some figures.
type Stat struct {
	Median, Min, Max float64
	N                int
}

// Summarize returns the Stat of samples (ok is false when there are none).
func Summarize(samples []Sample) (s Stat, ok bool) {
	if len(samples) == 0 {
		return Stat{}, false
	}
	v := make([]float64, len(samples))
	for i, x := range samples {
		v[i] = x.Value
	}
	slices.Sort(v)
	n := len(v)
	s = Stat{Min: v[0], Max: v[n-1], N: n, Median: v[n/2]}
	if n%2 == 0 {
		s.Median = (v[n/2-1] + v[n/2]) / 2
	}
	return s, true
}

// ByRound returns the figure of each round (the median of the round's
// figures when a round has several).
func ByRound(samples []Sample) map[int]float64 {
	per := map[int][]Sample{}
	for _, s := range samples {
		per[s.Round] = append(per[s.Round], s)
	}
	m := make(map[int]float64, len(per))
	for r, ss := range per {
		st, _ := Summarize(ss)
		m[r] = st.Median
	}
	return m
}

// Display names a library as the README does (the benchmarks name
// sethvargo/go-limiter after its author, and x/time/rate without slashes).
func Display(lib string) string {
	switch lib {
	case "sethvargo":
		return "go-limiter"
	case "x-time-rate":
		return "x/time/rate"
	}
	return lib
}
