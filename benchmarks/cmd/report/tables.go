package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// groupsWithPrefix returns the groups of a benchmark ("ScaleKeys/"), in
// the order first seen.
func groupsWithPrefix(f figures, prefix string) []string {
	var out []string
	for _, g := range f.Groups {
		if strings.HasPrefix(g, prefix) {
			out = append(out, g)
		}
	}
	return out
}

// libsOf returns the libraries of groups, in the order first seen, with
// those only skipped in them.
func libsOf(f figures, groups []string) []string {
	var out []string
	add := func(lib string) {
		if !slices.Contains(out, lib) {
			out = append(out, lib)
		}
	}
	for _, g := range groups {
		for _, lib := range f.Libs(g) {
			add(lib)
		}
	}
	for _, n := range f.Skips {
		if slices.Contains(groups, n.Group) {
			add(n.Lib)
		}
	}
	return out
}

// roundsIn counts the rounds in which any library ran in groups.
func roundsIn(f figures, groups []string) int {
	seen := map[int]bool{}
	for _, g := range groups {
		for _, lib := range f.Libs(g) {
			for _, u := range f.Units(g, lib) {
				for _, s := range f.Samples(g, lib, u) {
					seen[s.Round] = true
				}
			}
		}
	}
	return len(seen)
}

// libHeader writes the head of a table: a first column, one column per
// library, and the extra columns, all but the first right-aligned.
func libHeader(w io.Writer, first string, libs []string, extra ...string) {
	fmt.Fprintf(w, "| %s |", first)
	for _, lib := range libs {
		fmt.Fprintf(w, " %s |", display(lib))
	}
	for _, e := range extra {
		fmt.Fprintf(w, " %s |", e)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(libs)+len(extra)))
}

func mediansOf(n int) string {
	if n == 1 {
		return "one round"
	}
	return fmt.Sprintf("medians of %d rounds", n)
}

func linkPlot(w io.Writer, results, name, alt string) {
	p := filepath.Join(results, name)
	if _, err := os.Stat(p); err == nil {
		fmt.Fprintf(w, "\n![%s](%s)\n", alt, filepath.ToSlash(p))
	}
}

func writeScaleKeys(w io.Writer, f figures, results string) {
	groups := groupsWithPrefix(f, "ScaleKeys/")
	if len(groups) == 0 {
		return
	}
	libs := libsOf(f, groups)
	fmt.Fprintf(w, "\n## Cost as the work grows\n\n### Keys: ns per decision and heap kept per key\n\n")
	fmt.Fprintf(w, "Decisions on existing keys from GOMAXPROCS goroutines, and the heap kept per key once inserted (BenchmarkScaleKeys; %s).\n\n", mediansOf(roundsIn(f, groups)))
	libHeader(w, "keys", libs, "floodgate ÷ best peer (ns)")
	var skipped []string
	for _, g := range groups {
		fmt.Fprintf(w, "| %s |", strings.TrimPrefix(g, "ScaleKeys/"))
		for _, lib := range libs {
			ns, ok := f.median(g, lib, "ns/op")
			bk, _ := f.median(g, lib, "B/key")
			switch n, skip := f.Skipped(g, lib); {
			case ok:
				fmt.Fprintf(w, " %s ns · %s B |", num(ns), num(bk))
			case skip:
				fmt.Fprintf(w, " skipped |")
				skipped = append(skipped, fmt.Sprintf("%s at %s: %s", display(lib), strings.TrimPrefix(g, "ScaleKeys/"), n.Text))
			default:
				fmt.Fprintf(w, " |")
			}
		}
		if best, ok := f.best(g, "ns/op", true); ok {
			u, uok := f.median(g, us, "ns/op")
			p, _ := f.median(g, best, "ns/op")
			if uok {
				fmt.Fprintf(w, " %s (%s) |", ratio(u/p), display(best))
			} else {
				fmt.Fprintf(w, " |")
			}
		} else {
			fmt.Fprintf(w, " |")
		}
		fmt.Fprintln(w)
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "\nNot run (it would not hold that many keys within the heap budget of run.sh's -scale-max-heap-gb):\n\n")
		for _, s := range skipped {
			fmt.Fprintf(w, "- %s\n", s)
		}
	}
	linkPlot(w, results, "scale-keys.svg", "ns per decision and heap per key against the number of keys")
}

func writeScaleRedis(w io.Writer, f figures, results string) {
	groups := groupsWithPrefix(f, "RedisScale/")
	if len(groups) == 0 {
		return
	}
	libs := libsOf(f, groups)
	fmt.Fprintf(w, "\n### Redis: decisions/s from 1 to 256 goroutines\n\nBenchmarkRedisScale, allow path, a pool of 64 connections; %s.\n", mediansOf(roundsIn(f, groups)))
	for _, shape := range []struct{ prefix, title string }{{"hot-", "one hot key"}, {"10k-", "10,000 keys"}} {
		fmt.Fprintf(w, "\n%s:\n\n", shape.title)
		libHeader(w, "goroutines", libs, "floodgate ÷ ulule")
		for _, g := range groups {
			rest := strings.TrimPrefix(g, "RedisScale/")
			if !strings.HasPrefix(rest, shape.prefix) {
				continue
			}
			fmt.Fprintf(w, "| %s |", strings.TrimPrefix(rest, shape.prefix+"g"))
			for _, lib := range libs {
				if v, ok := f.median(g, lib, "decisions/s"); ok {
					fmt.Fprintf(w, " %s |", thousands(v))
				} else {
					fmt.Fprintf(w, " |")
				}
			}
			u, uok := f.median(g, us, "decisions/s")
			p, pok := f.median(g, "ulule", "decisions/s")
			if uok && pok && p > 0 {
				fmt.Fprintf(w, " %s |\n", ratio(u/p))
			} else {
				fmt.Fprintf(w, " |\n")
			}
		}
	}
	linkPlot(w, results, "scale-redis.svg", "Redis decisions/s against goroutines")
}

// writeRedisCosts writes, per Redis group, each library's server time,
// server CPU and client allocations per decision.
func writeRedisCosts(w io.Writer, f figures) {
	groups := groupsWithPrefix(f, "RedisScale/")
	if len(groups) == 0 {
		return
	}
	libs := libsOf(f, groups)
	fmt.Fprintf(w, "\n## Redis: server time and client allocations per decision\n")
	for _, m := range []struct{ unit, title string }{
		{"srv-us/op", "Server execution time per decision, µs (INFO commandstats usec of the commands the client sent, delta around the run)"},
		{"srvcpu-us/op", "Server process CPU per decision, µs (INFO cpu user + sys, delta around the run: includes network I/O and parsing)"},
		{"allocs/op", "Client allocations per decision"},
		{"B/op", "Client bytes allocated per decision"},
	} {
		fmt.Fprintf(w, "\n%s:\n\n", m.title)
		libHeader(w, "scenario", libs)
		for _, g := range groups {
			fmt.Fprintf(w, "| %s |", groupLabel(g))
			for _, lib := range libs {
				if s, ok := f.stat(g, lib, m.unit); ok {
					fmt.Fprintf(w, " %s |", spread(s, m.unit))
				} else {
					fmt.Fprintf(w, " |")
				}
			}
			fmt.Fprintln(w)
		}
	}
}

// writeGroup writes one scenario's table: every unit's median, the
// compared unit with its range, and floodgate ÷ each library.
func writeGroup(w io.Writer, f figures, g string) {
	unit, _ := primary(g)
	seen := map[string]bool{unit: true}
	units := []string{unit}
	for _, u := range []string{"ns/op", "B/op", "allocs/op"} {
		for _, lib := range f.Libs(g) {
			if !seen[u] && slices.Contains(f.Units(g, lib), u) {
				seen[u] = true
				units = append(units, u)
			}
		}
	}
	var extra []string
	for _, lib := range f.Libs(g) {
		for _, u := range f.Units(g, lib) {
			if !seen[u] {
				seen[u] = true
				extra = append(extra, u)
			}
		}
	}
	slices.Sort(extra)
	units = append(units, extra...)
	if strings.HasPrefix(g, "HeapPerKey") || strings.HasPrefix(g, "Accuracy") {
		// Their ns/op, B/op and allocs/op cover the whole setup (key
		// strings, 3 s of hammering): not figures of the library.
		units = slices.DeleteFunc(units, func(u string) bool { return u == "ns/op" || u == "B/op" || u == "allocs/op" })
	}
	mw := strings.HasPrefix(g, "Middleware")
	acc := strings.HasPrefix(g, "Accuracy")
	fmt.Fprintf(w, "\n## %s\n\n| library |", g)
	for i, u := range units {
		switch {
		case i == 0 && mw:
			fmt.Fprintf(w, " overhead ns/op (min–max) |")
		case i == 0:
			fmt.Fprintf(w, " %s (min–max) |", u)
		default:
			fmt.Fprintf(w, " %s |", u)
		}
	}
	if !acc {
		fmt.Fprintf(w, " floodgate ÷ this (%s) |", unit)
	}
	fmt.Fprintf(w, "\n|---|%s", strings.Repeat("---:|", len(units)))
	if !acc {
		fmt.Fprintf(w, "---:|")
	}
	fmt.Fprintln(w)
	uv, uok := f.median(g, us, unit)
	for _, lib := range f.Libs(g) {
		if mw && lib == "bare" {
			fmt.Fprintf(w, "| bare (its own ns/op) |")
		} else {
			fmt.Fprintf(w, "| %s |", lib)
		}
		for i, u := range units {
			s, ok := f.stat(g, lib, u)
			switch {
			case !ok:
				fmt.Fprintf(w, " |")
			case i == 0:
				fmt.Fprintf(w, " %s |", spread(s, u))
			default:
				fmt.Fprintf(w, " %s |", fmtUnit(s.Median, u))
			}
		}
		if !acc {
			v, ok := f.median(g, lib, unit)
			if uok && ok && v != 0 && lib != "bare" {
				fmt.Fprintf(w, " %s |", ratio(uv/v))
			} else {
				fmt.Fprintf(w, " |")
			}
		}
		fmt.Fprintln(w)
	}
}
