// Command simulate plays traffic shapes through every floodgate algorithm
// on a simulated clock and writes, per shape, an SVG plot of the requests
// admitted and denied over time, and figures.md, the figures of every play
// in tables: what to look at when choosing an algorithm.
//
//	go run ./examples/simulate -out docs/algorithms
//
// The output is the same, byte for byte, at every run: the clock is
// simulated and the random arrivals are seeded.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "docs/algorithms", "the directory to write the plots and figures.md to")
	flag.Parse()
	if err := run(*out); err != nil {
		log.Fatal(err)
	}
}

// played is a shape played through every algorithm.
type played struct {
	s    shape
	rows []row
}

// simulate plays every shape through every algorithm.
func simulate() ([]played, error) {
	var out []played
	for _, s := range shapes() {
		p := played{s: s}
		for _, a := range algorithms(s.limit, s.window, s.login) {
			reqs, err := play(s, a)
			if err != nil {
				return nil, err
			}
			p.rows = append(p.rows, row{a: a, reqs: reqs, f: measure(s, reqs)})
		}
		out = append(out, p)
	}
	return out, nil
}

// run writes the plots and figures.md into dir.
func run(dir string) error {
	results, err := simulate()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range results {
		if err := os.WriteFile(filepath.Join(dir, p.s.file+".svg"), plot(p.s, p.rows), 0o644); err != nil {
			return err
		}
	}
	md, err := markdown(results)
	if err != nil {
		return fmt.Errorf("figures.md: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "figures.md"), md, 0o644)
}
