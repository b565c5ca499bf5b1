// Command plot draws the scaling figures of run.sh's raw output as SVG
// files, with nothing but the standard library:
//
//	go run ./cmd/plot -dir results results/raw.txt
//
// writes results/scale-redis.svg (Redis decisions/s against goroutines, one
// hot key and 10,000 keys) and results/scale-keys.svg (ns per decision and
// heap kept per key against the number of keys), each when the raw file
// holds the figures; medians of the rounds.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/floodgate-go/floodgate/benchmarks/cmd/internal/rounds"
)

func main() {
	dir := flag.String("dir", "results", "directory to write the SVG files into")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: plot [-dir DIR] RAW")
		os.Exit(2)
	}
	fh, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
	run, err := rounds.Parse(fh)
	fh.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
	for name, panels := range map[string][]panel{
		"scale-redis.svg": redisPanels(run),
		"scale-keys.svg":  keysPanels(run),
	} {
		if len(panels) == 0 {
			continue
		}
		var buf bytes.Buffer
		draw(&buf, panels)
		p := filepath.Join(*dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "plot:", err)
			os.Exit(1)
		}
		fmt.Println("plot: wrote", p)
	}
}

// seriesOf collects, for groups named prefix+x, each library's median in
// unit against x (parsed by xOf; groups it refuses are left out).
func seriesOf(run *rounds.Run, prefix, unit string, xOf func(string) (float64, bool)) []series {
	var out []series
	index := map[string]int{}
	for _, g := range run.Groups {
		rest, ok := strings.CutPrefix(g, prefix)
		if !ok {
			continue
		}
		x, ok := xOf(rest)
		if !ok {
			continue
		}
		for _, lib := range run.Libs(g) {
			st, ok := rounds.Summarize(run.Samples(g, lib, unit))
			if !ok {
				continue
			}
			i, seen := index[lib]
			if !seen {
				i = len(out)
				index[lib] = i
				out = append(out, series{name: lib})
			}
			out[i].xs = append(out[i].xs, x)
			out[i].ys = append(out[i].ys, st.Median)
		}
	}
	return out
}

func redisPanels(run *rounds.Run) []panel {
	var ps []panel
	for _, shape := range []struct{ prefix, title string }{{"hot-g", "one hot key"}, {"10k-g", "10,000 keys"}} {
		s := seriesOf(run, "RedisScale/"+shape.prefix, "decisions/s", func(g string) (float64, bool) {
			n, err := strconv.Atoi(g)
			return float64(n), err == nil
		})
		if len(s) > 0 {
			ps = append(ps, panel{title: "Redis, " + shape.title, xlabel: "goroutines", ylabel: "decisions/s",
				logX: true, series: s})
		}
	}
	return ps
}

var keyCounts = map[string]float64{"10k": 1e4, "100k": 1e5, "1M": 1e6, "10M": 1e7}

func keysPanels(run *rounds.Run) []panel {
	xOf := func(s string) (float64, bool) { v, ok := keyCounts[s]; return v, ok }
	var ps []panel
	if s := seriesOf(run, "ScaleKeys/", "ns/op", xOf); len(s) > 0 {
		ps = append(ps, panel{title: "ns per decision", xlabel: "keys", ylabel: "ns/op", logX: true, series: s})
	}
	if s := seriesOf(run, "ScaleKeys/", "B/key", xOf); len(s) > 0 {
		ps = append(ps, panel{title: "heap kept per key", xlabel: "keys", ylabel: "B/key", logX: true, series: s})
	}
	return ps
}

// libraryOrder sorts series with floodgate first, then by name, so that
// colours stay the same from one figure to the next.
func libraryOrder(s []series) {
	slices.SortFunc(s, func(a, b series) int {
		if (a.name == "floodgate") != (b.name == "floodgate") {
			if a.name == "floodgate" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
}
