// Command report turns the raw output of run.sh (results/raw.txt: one
// `go test -bench` invocation per library, scenario and round) into the
// markdown of RESULTS.md: every figure as the median of its rounds with
// its range, the targets with the ratio floodgate ÷ peer and whether they
// are met (and in how many rounds), the table for the README (between
// markers, naming the machine), the scaling tables, and one table per
// scenario.
//
//	go run ./cmd/report results/raw.txt > RESULTS.md
//
// The machine is read from the raw file's configuration lines, written by
// run.sh: cpu-model, cores, go-version, redis-version, date, command, note
// (and `go test`'s own goos, goarch, cpu).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/floodgate-go/floodgate/benchmarks/cmd/internal/rounds"
)

func main() {
	results := flag.String("results", "results", "directory of the plots to link, relative to the output")
	flag.Parse()
	var run *rounds.Run
	var err error
	switch flag.NArg() {
	case 0:
		run, err = rounds.Parse(os.Stdin)
	case 1:
		var fh *os.File
		if fh, err = os.Open(flag.Arg(0)); err == nil {
			run, err = rounds.Parse(fh)
			fh.Close()
		}
	default:
		err = fmt.Errorf("one raw file at most")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	w := bufio.NewWriter(os.Stdout)
	write(w, figures{run}, *results)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// machine describes where the run ran, in one line.
func machine(run *rounds.Run) string {
	c := run.Config
	cpu := c["cpu-model"]
	if cpu == "" {
		cpu = c["cpu"]
	}
	parts := []string{cpu}
	if c["cores"] != "" {
		parts = append(parts, c["cores"]+" cores")
	}
	if run.Procs != "" {
		parts = append(parts, "GOMAXPROCS "+run.Procs)
	}
	if c["goos"] != "" {
		parts = append(parts, c["goos"]+"/"+c["goarch"])
	}
	if v := c["go-version"]; v != "" {
		parts = append(parts, "Go "+strings.TrimPrefix(v, "go"))
	}
	if v := c["redis-version"]; v != "" {
		parts = append(parts, "Redis "+v+" on the same cores")
	}
	if v := c["date"]; v != "" {
		parts = append(parts, v)
	}
	return strings.Join(parts, ", ")
}

func roundsText(run *rounds.Run) string {
	n := len(run.Rounds)
	if n == 0 || (n == 1 && run.Rounds[0] == 0) {
		return "one run of every benchmark (no rounds)"
	}
	return fmt.Sprintf("%d interleaved rounds", n)
}

func write(w io.Writer, f figures, results string) {
	c := f.Config
	fmt.Fprintf(w, "# floodgate and its peers: benchmarks\n\n")
	fmt.Fprintf(w, "- machine: %s\n", machine(f.Run))
	fmt.Fprintf(w, "- rounds: %s — each round runs every library once per scenario, in its own process, the order of the libraries rotated from one round to the next, so that a noisy stretch of a shared host spreads over every library; scaling and accuracy scenarios may run in fewer rounds (see each table). Every figure is the median of its rounds, with (min–max) where they differ.\n", roundsText(f.Run))
	if v := c["command"]; v != "" {
		fmt.Fprintf(w, "- reproduce: `cd benchmarks && %s`\n", v)
	}
	if v := c["note"]; v != "" {
		fmt.Fprintf(w, "- **note: %s**\n", v)
	}

	vs := f.verdicts()
	writeREADME(w, f, vs)
	writeTargets(w, vs)
	writeScaleKeys(w, f, results)
	writeScaleRedis(w, f, results)
	writeRedisCosts(w, f)
	fmt.Fprint(w, scenarios)
	for _, g := range f.Groups {
		writeGroup(w, f, g)
	}
	writeNotes(w, f)
}

func writeREADME(w io.Writer, f figures, vs []verdict) {
	fmt.Fprintf(w, "\n## README table\n\n")
	fmt.Fprintf(w, "<!-- README table: begin (written by cmd/report; paste everything down to the end marker into README.md) -->\n")
	cmd := f.Config["command"]
	if cmd == "" {
		cmd = "./run.sh"
	}
	fmt.Fprintf(w, "Latest run — %s, `%s` (%s; medians):\n\n", machine(f.Run), cmd, roundsText(f.Run))
	if n := f.Config["note"]; n != "" {
		fmt.Fprintf(w, "*%s*\n\n", n)
	}
	fmt.Fprintf(w, "| scenario | peer | floodgate | ratio | target | met |\n|---|---|---:|---:|---|---|\n")
	for _, v := range vs {
		met := v.met
		if v.rounds != "" {
			met += " (" + v.rounds + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", v.label, v.peer, v.us, v.ratio, v.target, met)
	}
	fmt.Fprintf(w, "\nRatios are floodgate ÷ peer: below 1× floodgate is faster or smaller, except on Redis rows in decisions/s, where above 1× it is faster. The peer is the best one on the row unless the target names it. \"met\" judges the medians; in brackets, the rounds in which the target held, floodgate's figure paired with the peer's of the same round.\n")
	fmt.Fprintf(w, "<!-- README table: end -->\n")
}

func writeTargets(w io.Writer, vs []verdict) {
	fmt.Fprintf(w, "\n## Against the targets, with the spread of the rounds\n\n")
	fmt.Fprintf(w, "The ratio round by round pairs floodgate's figure with the peer's of the same round; \"rounds met\" counts the rounds in which the target held.\n\n")
	fmt.Fprintf(w, "| scenario | floodgate | peer | ratio of medians | ratio round by round | target | met | rounds met |\n|---|---:|---|---:|---:|---|---|---|\n")
	for _, v := range vs {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", v.label, v.usSpread, v.peerSpread, v.ratio, v.ratioSpread, v.target, v.met, v.rounds)
	}
}

// writeNotes lists the benchmarks skipped or failed.
func writeNotes(w io.Writer, f figures) {
	if len(f.Skips)+len(f.Fails) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Skipped and failed\n\n")
	seen := map[rounds.Note]bool{}
	for _, list := range []struct {
		what  string
		notes []rounds.Note
	}{{"FAILED", f.Fails}, {"skipped", f.Skips}} {
		for _, n := range list.notes {
			if seen[n] {
				continue
			}
			seen[n] = true
			fmt.Fprintf(w, "- %s/%s %s: %s\n", n.Group, n.Lib, list.what, n.Text)
		}
	}
}

const scenarios = `
## Scenarios

The code says exactly what each measures (the _test.go files); in short:

- **HotKey**: one key decided over and over, allow path (1/s, burst 1e9: never denies) or deny path (1/day, burst 1, spent before the timer), from one goroutine or GOMAXPROCS; the limiter is built once.
- **ManyKeys**: 1,000,000 existing keys (inserted before the timer; 1 per 10 min, burst 1e6) decided from GOMAXPROCS goroutines, each decision given a fresh copy of its key (as a server builds one per request), the keys visited in an order unrelated to their insertion's.
- **HeapPerKey**: HeapAlloc after GC, after inserting 1,000,000 freshly built key strings into a new limiter, minus HeapAlloc after GC before, per key.
- **Middleware**: ServeHTTP called directly from GOMAXPROCS goroutines, 768 client IPs (RemoteAddr), allow path, every header the library writes on; overhead = ns/op − bare's, round by round.
- **RedisScale**: a local redis-server (one per process), exactly 1, 8, 64 or 256 goroutines (a pool of 64 connections), one hot key or 10,000 keys, allow path; decisions/s; srv-us/op is the server's execution time per decision of the commands the client sent (INFO commandstats deltas; a script's inner commands are not counted twice), srvcpu-us/op the server process's CPU per decision (INFO cpu: with network I/O), cmds/op and trips/op what the client sent, allocs/op the client's allocations.
- **Redis** (when run): the older shape, 1, 8, 64 goroutines over 1,024 keys.
- **ScaleKeys**: ManyKeys at 10k, 100k, 1M and 10M keys for floodgate's GCRA and the peers leading the 1M rows, with the heap kept per key (as HeapPerKey).
- **Accuracy**: one key hammered for 3 s at 100/s burst 100; sim = on the library's own clock (10 calls per 100 µs), real = in real time.

floodgate is its GCRA over the MemoryStore, called as the middleware calls it: Limiter.Take into a Result on the caller's stack, one per decision (floodgate-allow, HotKey only: through Limiter.Allow, which returns the Result by value and so copies it out of the call; floodgate-tb: its TokenBucket); the best peer leaves every floodgate row out.
`
